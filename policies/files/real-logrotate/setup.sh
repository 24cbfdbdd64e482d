mkdir -p var/log/app
printf 'current log\n' > var/log/app/worker.log
printf 'yesterday\n' > var/log/app/worker.log.1
printf 'ancient\n' > var/log/app/stale9.log.5
printf 'ancient\n' > var/log/app/stale9.log.6
chmod 0755 var var/log var/log/app
chmod 0640 var/log/app/worker.log var/log/app/worker.log.1 var/log/app/stale9.log.5 var/log/app/stale9.log.6
touch -d '2000-01-01 00:00:00' var/log/app/stale9.log.5 var/log/app/stale9.log.6
touch -d '2026-01-01 00:00:00' var/log/app/worker.log var/log/app/worker.log.1 var/log/app var/log var
