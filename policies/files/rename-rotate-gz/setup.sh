printf 'live\n' > svc.log
printf 'one\n' > svc.log.1
printf 'two-gz\n' > svc.log.2.gz
chmod 0644 svc.log svc.log.1 svc.log.2.gz
touch -d '2026-01-01 00:00:00' svc.log svc.log.1 svc.log.2.gz
