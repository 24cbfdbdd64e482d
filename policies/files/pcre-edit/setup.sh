printf 'foo=foo\nfoo=bar\naaab\na.b\naxb\ncafé\n[skip]\nx=1\n[main]\nx=2\n[other]\nx=3\nbad\n' > f
printf 'keep=1\nDROP=2\nkeep2=3\n' > g
printf 'one\n' > h
chmod 0644 f g h
touch -d '2026-01-01 00:00:00' f g h
