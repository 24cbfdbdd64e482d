printf 'before\n# BEGIN managed\nold 1\nold 2\n# END managed\nafter\n' > f
chmod 0644 f
touch -d '2026-01-01 00:00:00' f
