mkdir -p src/sub dst
printf 'one\n' > src/one
printf 'two\n' > src/sub/two
printf 'stale\n' > dst/extra12
printf 'old one\n' > dst/one
chmod 0755 src src/sub dst
chmod 0644 src/one src/sub/two dst/extra12 dst/one
touch -d '2026-01-01 00:00:00' src/one src/sub/two dst/extra12 dst/one src/sub src dst
