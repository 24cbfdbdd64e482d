mkdir -p tree/keep20 tree/skip
printf 'x\n' > tree/keep20/f
printf 'x\n' > tree/skip/f
chmod 0755 tree tree/keep20 tree/skip
chmod 0600 tree/keep20/f tree/skip/f
touch -d '2026-01-01 00:00:00' tree/keep20/f tree/skip/f tree/keep20 tree/skip tree
