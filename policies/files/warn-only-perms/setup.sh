printf 'x\n' > f
mkdir dir
chmod 0666 f
chmod 0700 dir
touch -d '2026-01-01 00:00:00' f dir
