printf '0123456789abcdef\n' > seventeen
chmod 0644 seventeen
touch -d '2026-01-01 00:00:00' seventeen
