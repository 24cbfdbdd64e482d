mkdir real
printf 'real content\n' > real/file.conf
chmod 0755 real
chmod 0640 real/file.conf
touch -d '2026-01-01 00:00:00' real/file.conf real
ln -s real/file.conf link.conf
