mkdir rx
chmod 0755 rx
touch -d '2026-01-01 00:00:00' rx
