head -c 2097152 /dev/zero > big.dat
chmod 0644 big.dat
touch -d '2026-01-01 00:00:00' big.dat
