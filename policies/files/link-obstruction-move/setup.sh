printf 'target\n' > target
printf 'i am in the way\n' > link
chmod 0644 target link
touch -d '2026-01-01 00:00:00' target link
