mkdir tmp
printf '1\n' > tmp/a6.tmp
printf '2\n' > tmp/b6.tmp
printf '3\n' > tmp/keep6.txt
chmod 0755 tmp
chmod 0644 tmp/a6.tmp tmp/b6.tmp tmp/keep6.txt
touch -d '2026-01-01 00:00:00' tmp/a6.tmp tmp/b6.tmp tmp/keep6.txt tmp
