printf 'old name\n' > old.conf
chmod 0644 old.conf
touch -d '2026-01-01 00:00:00' old.conf
