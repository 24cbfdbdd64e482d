printf 'x\n' > f-owner
printf 'x\n' > f-both
printf 'x\n' > f-group
chmod 0644 f-owner f-both f-group
touch -d '2026-01-01 00:00:00' f-owner f-both f-group
