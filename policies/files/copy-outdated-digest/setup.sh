printf 'new content\n' > src.conf
printf 'old content\n' > dst.conf
chmod 0644 src.conf
chmod 0640 dst.conf
touch -d '2026-01-01 00:00:00' src.conf dst.conf
