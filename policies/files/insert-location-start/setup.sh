printf 'body\n' > f
printf '' > empty
chmod 0644 f empty
touch -d '2026-01-01 00:00:00' f empty
