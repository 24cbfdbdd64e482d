printf 'real source\n' > src
printf 'elsewhere\n' > elsewhere
chmod 0644 src elsewhere
touch -d '2026-01-01 00:00:00' src elsewhere
ln -s elsewhere dst
