printf 'old junk\nnameserver 8.8.8.8\n' > resolv.conf
chmod 0644 resolv.conf
touch -d '2026-01-01 00:00:00' resolv.conf
