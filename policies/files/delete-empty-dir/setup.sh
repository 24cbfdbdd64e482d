mkdir empty1 empty2
chmod 0755 empty1 empty2
touch -d '2026-01-01 00:00:00' empty1 empty2
