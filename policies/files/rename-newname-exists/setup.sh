printf 'source\n' > from.conf
printf 'already here\n' > to.conf
chmod 0644 from.conf to.conf
touch -d '2026-01-01 00:00:00' from.conf to.conf
