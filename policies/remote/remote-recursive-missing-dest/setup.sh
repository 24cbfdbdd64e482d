mkdir -p served/tree dst
printf 'one\n' > served/tree/one
chmod 0755 served served/tree dst
chmod 0644 served/tree/one
touch -d '2026-01-01 00:00:00' served/tree/one served/tree served dst
