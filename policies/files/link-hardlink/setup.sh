printf 'shared inode\n' > original
chmod 0644 original
touch -d '2026-01-01 00:00:00' original
