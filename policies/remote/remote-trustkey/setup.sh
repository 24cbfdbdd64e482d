mkdir -p served dst
printf 'verified\n' > served/a.txt
chmod 0755 served dst
chmod 0644 served/a.txt
touch -d '2026-01-01 00:00:00' served/a.txt served dst
