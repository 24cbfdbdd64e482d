mkdir d1
printf 'x\n' > d1/f
chmod 0755 d1
chmod 0600 d1/f
touch -d '2026-01-01 00:00:00' d1/f d1
