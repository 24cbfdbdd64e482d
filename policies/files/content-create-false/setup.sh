printf 'stale\n' > exists
chmod 0644 exists
touch -d '2026-01-01 00:00:00' exists
