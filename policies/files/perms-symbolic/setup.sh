printf 'script\n' > run.sh
printf 'other\n' > other.sh
chmod 0644 run.sh
chmod 0777 other.sh
touch -d '2026-01-01 00:00:00' run.sh other.sh
