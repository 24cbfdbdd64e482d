printf 'right\n' > right
printf 'wrong\n' > wrong
chmod 0644 right wrong
touch -d '2026-01-01 00:00:00' right wrong
ln -s /srv/cfsim-files/link-wrong-target/wrong link
