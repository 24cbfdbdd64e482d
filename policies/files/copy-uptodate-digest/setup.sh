printf 'same\n' > src.conf
printf 'same\n' > dst.conf
chmod 0644 src.conf
chmod 0600 dst.conf
touch -d '2026-01-01 00:00:00' src.conf
touch -d '2000-01-01 00:00:00' dst.conf
