mkdir data
printf '0123456789012345678901234567890123456789\n' > data/big0
printf 'x\n' > data/small0
chmod 0755 data
chmod 0600 data/big0 data/small0
touch -d '2026-01-01 00:00:00' data/big0 data/small0 data
