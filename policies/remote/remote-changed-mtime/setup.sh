mkdir -p served dst
printf 'fresh\n' > served/old.txt
printf 'stale\n' > dst/old.txt
printf 'server copy\n' > served/newer.txt
printf 'local edit\n' > dst/newer.txt
chmod 0755 served dst
chmod 0644 served/old.txt dst/old.txt served/newer.txt dst/newer.txt
touch -d '2026-01-01 00:00:00' served/old.txt served/newer.txt served dst
touch -d '2000-01-01 00:00:00' dst/old.txt
touch -d '2099-01-01 00:00:00' dst/newer.txt
