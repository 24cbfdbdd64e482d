printf 'x\n' > match.log
printf 'x\n' > other.txt
chmod 0600 match.log other.txt
touch -d '2026-01-01 00:00:00' match.log other.txt
