printf '[db]\nhost=old.example\n#port=5432\n[cache]\nsize=1\n' > app.ini
chmod 0644 app.ini
touch -d '2026-01-01 00:00:00' app.ini
