mkdir etc
printf '127.0.0.1 localhost\n10.0.0.9 oldhost\n' > etc/hosts
chmod 0755 etc
chmod 0644 etc/hosts
touch -d '2026-01-01 00:00:00' etc/hosts etc
