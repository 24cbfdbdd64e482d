mkdir -p served dst
printf 'target\n' > served/real.txt
ln -s real.txt served/link.txt
chmod 0755 served dst
chmod 0644 served/real.txt
touch -d '2026-01-01 00:00:00' served/real.txt served dst
