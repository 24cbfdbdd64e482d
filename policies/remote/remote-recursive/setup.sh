mkdir -p served/tree/sub/deep8 dst
printf 'one\n' > served/tree/one
printf 'two\n' > served/tree/sub/two
printf 'three\n' > served/tree/sub/deep8/three
printf 'old one\n' > dst/one
chmod 0755 served served/tree served/tree/sub served/tree/sub/deep8 dst
chmod 0644 served/tree/one served/tree/sub/two served/tree/sub/deep8/three dst/one
touch -d '2026-01-01 00:00:00' served/tree/one served/tree/sub/two served/tree/sub/deep8/three dst/one served/tree/sub/deep8 served/tree/sub served/tree served dst
