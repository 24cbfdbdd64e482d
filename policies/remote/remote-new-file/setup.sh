mkdir -p served dst
printf 'hello from the hub\n' > served/a.txt
printf 'bee\n' > served/b.txt
chmod 0755 served dst
chmod 0644 served/a.txt served/b.txt
touch -d '2026-01-01 00:00:00' served/a.txt served/b.txt served dst
