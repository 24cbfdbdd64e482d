mkdir spool
printf 'old\n' > spool/old4
printf 'new\n' > spool/new4
chmod 0755 spool
chmod 0600 spool/old4 spool/new4
touch -d '2000-01-01 00:00:00' spool/old4
touch -d '2099-01-01 00:00:00' spool/new4
touch -d '2026-01-01 00:00:00' spool
