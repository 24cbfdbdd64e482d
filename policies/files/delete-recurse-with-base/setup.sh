mkdir -p spool/in
printf 'job\n' > spool/in/job1
printf 'job\n' > spool/job41
chmod 0755 spool spool/in
chmod 0644 spool/in/job1 spool/job41
touch -d '2026-01-01 00:00:00' spool/in/job1 spool/job41 spool/in spool
