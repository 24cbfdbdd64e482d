printf 'truncate me\n' > big.log
chmod 0644 big.log
touch -d '2026-01-01 00:00:00' big.log
