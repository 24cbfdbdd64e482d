mkdir -p served dst
chmod 0755 served dst
touch -d '2026-01-01 00:00:00' served dst
