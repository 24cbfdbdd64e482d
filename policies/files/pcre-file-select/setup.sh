mkdir logs
printf 'x\n' > logs/app2.log
printf 'x\n' > logs/app2.log.1
printf 'x\n' > logs/notes2.txt
chmod 0755 logs
chmod 0644 logs/app2.log logs/app2.log.1 logs/notes2.txt
touch -d '2026-01-01 00:00:00' logs/app2.log logs/app2.log.1 logs/notes2.txt logs
