mkdir -p tree/sub/sub/sub/sub/sub
for p in tree tree/sub tree/sub/sub tree/sub/sub/sub tree/sub/sub/sub/sub tree/sub/sub/sub/sub/sub; do printf "x\n" > $p/file; chmod 0600 $p/file; chmod 0700 $p; done
touch -d "2026-01-01 00:00:00" tree/sub/sub/sub/sub/sub/file tree/sub/sub/sub/sub/sub tree/sub/sub/sub/sub/file tree/sub/sub/sub/sub tree/sub/sub/sub/file tree/sub/sub/sub tree/sub/sub/file tree/sub/sub tree/sub/file tree/sub tree/file tree
