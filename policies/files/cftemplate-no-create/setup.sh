printf 'value = 1\n' > t.tmpl
chmod 0644 t.tmpl
touch -d '2026-01-01 00:00:00' t.tmpl
