mkdir lib
printf 'so\n' > lib/libfoo.so.1.2
chmod 0755 lib
chmod 0644 lib/libfoo.so.1.2
touch -d '2026-01-01 00:00:00' lib/libfoo.so.1.2 lib
