mkdir -p served dst
printf 'secret\n' > served/a.txt
printf 'same\n' > served/same.txt
printf 'same\n' > dst/same.txt
chmod 0755 served dst
chmod 0644 served/a.txt served/same.txt dst/same.txt
touch -d '2026-01-01 00:00:00' served/a.txt served/same.txt dst/same.txt served dst
