printf 'header\n[allowed]\nuser=alice\njunk\nuser=bob\n[other]\nuntouched\n' > users.ini
chmod 0644 users.ini
touch -d '2026-01-01 00:00:00' users.ini
