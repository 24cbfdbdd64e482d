printf 'CFLAGS = -O2 \\\n  -Wall\nother\n' > Makefile
chmod 0644 Makefile
touch -d '2026-01-01 00:00:00' Makefile
