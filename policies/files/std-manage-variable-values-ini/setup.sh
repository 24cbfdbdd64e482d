printf '[global]\nworkgroup = OLD\nstale = yes\n[homes]\nbrowseable = no\n' > smb.ini
chmod 0644 smb.ini
touch -d '2026-01-01 00:00:00' smb.ini
