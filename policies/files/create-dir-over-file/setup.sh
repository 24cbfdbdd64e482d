printf 'i am a file\n' > thing
printf 'i am a file\n' > moved
chmod 0644 thing moved
touch -d '2026-01-01 00:00:00' thing moved
