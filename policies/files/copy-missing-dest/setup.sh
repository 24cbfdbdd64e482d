printf 'source data\n' > src.conf
chmod 0640 src.conf
touch -d '2026-01-01 00:00:00' src.conf
