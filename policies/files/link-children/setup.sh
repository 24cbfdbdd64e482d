mkdir -p pkg/bin
printf 'a\n' > pkg/bin/a0
printf 'b\n' > pkg/bin/b0
chmod 0755 pkg pkg/bin
chmod 0755 pkg/bin/a0 pkg/bin/b0
touch -d '2026-01-01 00:00:00' pkg/bin/a0 pkg/bin/b0 pkg/bin pkg
