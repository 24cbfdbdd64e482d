printf '[main]\nkey=1\n[other]\n' > app.ini
chmod 0644 app.ini
touch -d '2026-01-01 00:00:00' app.ini
