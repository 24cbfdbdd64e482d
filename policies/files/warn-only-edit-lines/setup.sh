printf 'a\nb\nc\nd\n' > f1
printf 'p\nq\nr\n' > f2
chmod 0644 f1 f2
touch -d '2026-01-01 00:00:00' f1 f2
