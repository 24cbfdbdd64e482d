mkdir -p served dst
printf 'same\n' > served/a.txt
printf 'same\n' > dst/a.txt
printf 'same m\n' > served/m.txt
printf 'same m\n' > dst/m.txt
chmod 0755 served dst
chmod 0644 served/a.txt dst/a.txt served/m.txt dst/m.txt
touch -d '2026-01-01 00:00:00' served/a.txt dst/a.txt served/m.txt dst/m.txt served dst
