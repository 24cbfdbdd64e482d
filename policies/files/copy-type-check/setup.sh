mkdir srcdir dstdir
printf 'file source\n' > src.file
chmod 0755 srcdir dstdir
chmod 0644 src.file
touch -d '2026-01-01 00:00:00' srcdir dstdir src.file
