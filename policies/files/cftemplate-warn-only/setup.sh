printf 'old\nsame\n' > out.conf
printf 'new\nsame\nextra\n' > app.tmpl
chmod 0644 out.conf app.tmpl
touch -d '2026-01-01 00:00:00' out.conf app.tmpl
