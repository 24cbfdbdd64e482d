mkdir full
printf 'inside\n' > full/f
chmod 0755 full
chmod 0644 full/f
touch -d '2026-01-01 00:00:00' full/f full
