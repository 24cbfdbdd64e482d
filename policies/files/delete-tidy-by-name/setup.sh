mkdir -p logs/sub/deeper other
printf 'a\n' > logs/a0.log
printf 'b\n' > logs/b.txt
printf 'c\n' > logs/sub/c.log
printf 'd\n' > logs/sub/deeper/d.log
printf 'e\n' > logs/sub/deeper/e.log.1
printf 'f\n' > other/f.log
chmod 0755 logs logs/sub logs/sub/deeper other
chmod 0644 logs/a0.log logs/b.txt logs/sub/c.log logs/sub/deeper/d.log logs/sub/deeper/e.log.1 other/f.log
touch -d '2026-01-01 00:00:00' logs/a0.log logs/b.txt logs/sub/c.log logs/sub/deeper/d.log logs/sub/deeper/e.log.1 other/f.log logs/sub/deeper logs/sub logs other
