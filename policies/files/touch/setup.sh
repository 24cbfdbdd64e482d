printf 'old\n' > stamp
chmod 0644 stamp
touch -d '2026-01-01 00:00:00' stamp
