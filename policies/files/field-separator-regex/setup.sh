printf 'PORT = 22\nHOST=  old.example\n' > vars.conf
chmod 0644 vars.conf
touch -d '2026-01-01 00:00:00' vars.conf
