printf 'one\ntwo' > edited
printf 'alpha\nbeta' > untouched
chmod 0644 edited untouched
touch -d '2026-01-01 00:00:00' edited untouched
