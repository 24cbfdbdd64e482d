printf 'x\n' > victim
printf 'src\n' > src
chmod 0644 victim src
touch -d '2026-01-01 00:00:00' victim src
