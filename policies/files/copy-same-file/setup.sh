printf 'me\n' > self
chmod 0644 self
touch -d '2026-01-01 00:00:00' self
