mkdir -p var/sub
printf 'old\n' > var/ancient1.log
printf 'old\n' > var/sub/ancient2.log
printf 'recent\n' > var/recent.log
printf 'future\n' > var/future.log
chmod 0755 var var/sub
chmod 0644 var/ancient1.log var/sub/ancient2.log var/recent.log var/future.log
touch -d '2000-01-01 00:00:00' var/ancient1.log var/sub/ancient2.log
touch -d '2026-01-01 00:00:00' var/recent.log var/sub var
touch -d '2099-01-01 00:00:00' var/future.log
