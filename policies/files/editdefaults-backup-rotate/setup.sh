printf 'a\n' > f
printf 'older backup\n' > f.cf-before-edit.1
chmod 0644 f f.cf-before-edit.1
touch -d '2026-01-01 00:00:00' f f.cf-before-edit.1
