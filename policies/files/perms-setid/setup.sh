printf 'x\n' > sticky-file
mkdir shared private
chmod 0644 sticky-file
chmod 0755 shared private
touch -d '2026-01-01 00:00:00' sticky-file shared private
