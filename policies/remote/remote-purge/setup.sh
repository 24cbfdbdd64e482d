mkdir -p served/tree/sub dst/sub dst/gone4
printf 'one\n' > served/tree/one
printf 'two\n' > served/tree/sub/two
printf 'one\n' > dst/one
printf 'stale\n' > dst/extra12
printf 'stale sub\n' > dst/sub/extra7
printf 'in gone\n' > dst/gone4/f
chmod 0755 served served/tree served/tree/sub dst dst/sub dst/gone4
chmod 0644 served/tree/one served/tree/sub/two dst/one dst/extra12 dst/sub/extra7 dst/gone4/f
touch -d '2026-01-01 00:00:00' served/tree/one served/tree/sub/two dst/one dst/extra12 dst/sub/extra7 dst/gone4/f served/tree/sub served/tree served dst/sub dst/gone4 dst
