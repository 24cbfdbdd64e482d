printf 'v2\n' > src.conf
printf 'v1\n' > older.conf
printf 'v1\n' > same-age.conf
chmod 0644 src.conf older.conf same-age.conf
touch -d '2026-01-01 00:00:00' src.conf same-age.conf
touch -d '2000-01-01 00:00:00' older.conf
