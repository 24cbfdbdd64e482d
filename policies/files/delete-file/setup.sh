printf 'bye\n' > victim
chmod 0644 victim
touch -d '2026-01-01 00:00:00' victim
