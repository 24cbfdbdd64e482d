printf 'aaaa\n' > src
printf 'bbbb\n' > differs
printf 'aaaa\n' > same
chmod 0644 src differs same
touch -d '2026-01-01 00:00:00' src differs same
