mkdir realdir
printf 'keep\n' > realdir/f
chmod 0755 realdir
chmod 0644 realdir/f
touch -d '2026-01-01 00:00:00' realdir/f realdir
ln -s realdir dirlink
ln -s realdir keptlink
