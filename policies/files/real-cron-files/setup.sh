mkdir -p etc/cron.d
printf '# legacy job\n*/5 * * * * root /usr/local/bin/legacy\n' > etc/cron.d/legacy
printf 'stray\n' > etc/cron.d/stray8.dpkg-old
chmod 0755 etc etc/cron.d
chmod 0644 etc/cron.d/legacy etc/cron.d/stray8.dpkg-old
touch -d '2026-01-01 00:00:00' etc/cron.d/legacy etc/cron.d/stray8.dpkg-old etc/cron.d etc
