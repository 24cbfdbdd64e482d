mkdir -p data/dir3
printf 'x\n' > data/file3
ln -s file3 data/link3
chmod 0700 data data/dir3
chmod 0600 data/file3
touch -d '2026-01-01 00:00:00' data/file3 data/dir3 data
