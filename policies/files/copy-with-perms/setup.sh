printf 'payload\n' > src
chmod 0600 src
touch -d '2026-01-01 00:00:00' src
