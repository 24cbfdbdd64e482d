mkdir a
chmod 0755 a
touch -d '2026-01-01 00:00:00' a
