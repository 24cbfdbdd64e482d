printf 'x\n' > file
mkdir dir
chmod 0600 file
chmod 0700 dir
touch -d '2026-01-01 00:00:00' file dir
