printf 'x\n' > any-of
printf 'x\n' > first-resolvable
chmod 0644 any-of first-resolvable
touch -d '2026-01-01 00:00:00' any-of first-resolvable
