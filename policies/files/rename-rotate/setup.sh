printf 'current\n' > app.log
printf 'previous\n' > app.log.1
chmod 0644 app.log app.log.1
touch -d '2026-01-01 00:00:00' app.log app.log.1
