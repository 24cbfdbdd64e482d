printf 'port={{port}}\n' > p.mustache
printf 'port=22\n' > p.conf
chmod 0644 p.mustache p.conf
touch -d '2026-01-01 00:00:00' p.mustache p.conf
