printf 'new\n' > src
printf 'old\n' > dst
chmod 0644 src dst
touch -d '2026-01-01 00:00:00' src dst
