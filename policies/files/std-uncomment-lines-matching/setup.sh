printf '#deb http://mirror/debian main\n# deb http://mirror/debian contrib\n#other\n' > sources.list
chmod 0644 sources.list
touch -d '2026-01-01 00:00:00' sources.list
