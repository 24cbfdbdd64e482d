mkdir -p with/sub without/sub
printf 'x\n' > with/sub/f
printf 'x\n' > without/sub/f
chmod 0600 with/sub/f without/sub/f
chmod 0700 with with/sub without without/sub
touch -d '2026-01-01 00:00:00' with/sub/f without/sub/f with/sub without/sub with without
