printf 'old line 1\nold line 2\n' > conf
chmod 0640 conf
touch -d '2026-01-01 00:00:00' conf
