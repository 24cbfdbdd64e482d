mkdir -p tree/sub
printf 'x\n' > tree/sub/x
chmod 0755 tree tree/sub
chmod 0644 tree/sub/x
touch -d '2026-01-01 00:00:00' tree/sub/x tree/sub tree
