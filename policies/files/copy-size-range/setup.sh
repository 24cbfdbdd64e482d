printf 'this source is larger than ten bytes\n' > big
chmod 0644 big
touch -d '2026-01-01 00:00:00' big
