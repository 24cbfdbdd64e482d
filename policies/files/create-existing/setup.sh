printf 'keep me\n' > file.txt
mkdir dir
chmod 0644 file.txt
chmod 0755 dir
touch -d '2026-01-01 00:00:00' file.txt dir
