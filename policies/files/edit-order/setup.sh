printf 'keep1\nremove me\nfoo=baz\nx:old:z\nkeep2\n' > order.txt
chmod 0644 order.txt
touch -d '2026-01-01 00:00:00' order.txt
