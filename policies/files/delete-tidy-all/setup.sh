mkdir -p cache/a4/b cache/c4
printf '1\n' > cache/top4
printf '2\n' > cache/a4/one
printf '3\n' > cache/a4/b/two
chmod 0755 cache cache/a4 cache/a4/b cache/c4
chmod 0644 cache/top4 cache/a4/one cache/a4/b/two
touch -d '2026-01-01 00:00:00' cache/top4 cache/a4/one cache/a4/b/two cache/a4/b cache/a4 cache/c4 cache
