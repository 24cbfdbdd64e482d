mkdir -p served/public served/private dst
printf 'public\n' > served/public/a.txt
printf 'private\n' > served/private/b.txt
chmod 0755 served served/public served/private dst
chmod 0644 served/public/a.txt served/private/b.txt
touch -d '2026-01-01 00:00:00' served/public/a.txt served/private/b.txt served/public served/private served dst
