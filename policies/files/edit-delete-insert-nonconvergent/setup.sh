printf 'moving\nother\n' > f
chmod 0644 f
touch -d '2026-01-01 00:00:00' f
