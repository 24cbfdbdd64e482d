printf 'will be deleted\n' > del.txt
printf 'old name\n' > old.txt
printf '\001\002\003\004' > bin.dat
printf 'target\n' > target
printf 'keep1\nremove me\nkeep2\n' > order.txt
chmod 0644 del.txt old.txt bin.dat target order.txt
touch -d '2026-01-01 00:00:00' del.txt old.txt bin.dat target order.txt
