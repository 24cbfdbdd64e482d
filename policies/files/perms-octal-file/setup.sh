printf 'secret\n' > data.conf
chmod 0666 data.conf
touch -d '2026-01-01 00:00:00' data.conf
