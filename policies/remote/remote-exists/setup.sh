mkdir -p served dst
printf 'server\n' > served/there.txt
printf 'local\n' > dst/there.txt
printf 'server missing\n' > served/missing.txt
chmod 0755 served dst
chmod 0644 served/there.txt dst/there.txt served/missing.txt
touch -d '2026-01-01 00:00:00' served/there.txt dst/there.txt served/missing.txt served dst
