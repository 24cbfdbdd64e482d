mkdir emptydir
chmod 0755 emptydir
touch -d '2026-01-01 00:00:00' emptydir
