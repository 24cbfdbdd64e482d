printf 'i am a file\n' > ro
chmod 0644 ro
touch -d '2026-01-01 00:00:00' ro
