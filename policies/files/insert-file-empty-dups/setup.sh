printf 'dup\nunique\ndup\n' > source.txt
printf '' > target
chmod 0644 source.txt target
touch -d '2026-01-01 00:00:00' source.txt target
