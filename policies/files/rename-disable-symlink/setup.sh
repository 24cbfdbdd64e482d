printf 'target\n' > target
chmod 0644 target
touch -d '2026-01-01 00:00:00' target
ln -s target enabled
