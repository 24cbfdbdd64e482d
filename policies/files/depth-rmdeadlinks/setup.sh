mkdir links
printf 'x\n' > links/target10
ln -s target10 links/good10
ln -s missing10 links/dead10
chmod 0755 links
chmod 0644 links/target10
touch -d '2026-01-01 00:00:00' links/target10 links
