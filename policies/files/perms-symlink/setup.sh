printf 'x\n' > target
chmod 0600 target
touch -d '2026-01-01 00:00:00' target
ln -s target link
