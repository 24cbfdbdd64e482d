printf '# app settings\nNAME=old\n  PORT = 80\nDEBUG=1\n' > app.env
chmod 0644 app.env
touch -d '2026-01-01 00:00:00' app.env
