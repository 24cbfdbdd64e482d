mkdir -p releases/v2
printf 'v2\n' > releases/v2/VERSION
chmod 0755 releases releases/v2
chmod 0644 releases/v2/VERSION
touch -d '2026-01-01 00:00:00' releases/v2/VERSION releases/v2 releases
