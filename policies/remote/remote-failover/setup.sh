mkdir -p served dst
printf 'from the second server\n' > served/a.txt
printf 'local copy\n' > served/b.txt
chmod 0755 served dst
chmod 0644 served/a.txt served/b.txt
touch -d '2026-01-01 00:00:00' served/a.txt served/b.txt served dst
