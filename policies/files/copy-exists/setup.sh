printf 'seed\n' > seed.conf
printf 'locally modified\n' > dst.conf
chmod 0644 seed.conf dst.conf
touch -d '2026-01-01 00:00:00' seed.conf dst.conf
