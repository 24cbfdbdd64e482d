mkdir -p served dst
printf 'server\n' > served/a.txt
printf 'local\n' > dst/old.txt
chmod 0755 served dst
chmod 0644 served/a.txt dst/old.txt
touch -d '2026-01-01 00:00:00' served/a.txt dst/old.txt served dst
