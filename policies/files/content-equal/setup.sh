printf 'exactly this\n' > same
chmod 0644 same
touch -d '2026-01-01 00:00:00' same
