mkdir -p served dst
printf 'new content\n' > served/a.txt
printf 'old content\n' > dst/a.txt
printf 'new nb\n' > served/nb.txt
printf 'old nb\n' > dst/nb.txt
chmod 0755 served dst
chmod 0644 served/a.txt served/nb.txt
chmod 0640 dst/a.txt dst/nb.txt
touch -d '2026-01-01 00:00:00' served/a.txt dst/a.txt served/nb.txt dst/nb.txt served dst
