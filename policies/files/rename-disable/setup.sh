printf 'unwanted\n' > service.conf
chmod 0600 service.conf
touch -d '2026-01-01 00:00:00' service.conf
