printf '# limits\n#max_connections = 10\ntimeout = 5\nlisten=0.0.0.0\n' > server.conf
chmod 0644 server.conf
touch -d '2026-01-01 00:00:00' server.conf
