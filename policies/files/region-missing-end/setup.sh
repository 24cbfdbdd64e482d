printf '[sec]\nx=1\ny=2\n' > noeof.ini
printf '[sec]\nx=1\ny=2\n' > eof.ini
chmod 0644 noeof.ini eof.ini
touch -d '2026-01-01 00:00:00' noeof.ini eof.ini
