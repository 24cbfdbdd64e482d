printf 'x\n' > present
chmod 0644 present
touch -d '2026-01-01 00:00:00' present
