mkdir -p served dst
printf 'new\n' > served/a.txt
printf 'old\n' > dst/a.txt
chmod 0755 served dst
chmod 0644 served/a.txt dst/a.txt
touch -d '2026-01-01 00:00:00' served/a.txt dst/a.txt served dst
