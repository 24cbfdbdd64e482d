printf 'watched content\n' > watched.conf
chmod 0644 watched.conf
touch -d '2026-01-01 00:00:00' watched.conf
