printf 'x\n' > owned
chmod 0644 owned
touch -d '2026-01-01 00:00:00' owned
