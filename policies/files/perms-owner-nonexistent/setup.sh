printf 'x\n' > file
mkdir dir
chmod 0644 file
chmod 0755 dir
touch -d '2026-01-01 00:00:00' file dir
