printf '\001\002\003binary\000data\377\n\376tail\n' > blob.bin
chmod 0644 blob.bin
touch -d '2026-01-01 00:00:00' blob.bin
