mkdir -p conf/sub
printf 'x\n' > conf/a3.conf
printf 'x\n' > conf/b3.conf.bak
printf 'x\n' > conf/sub/c5.conf
chmod 0755 conf conf/sub
chmod 0600 conf/a3.conf conf/b3.conf.bak conf/sub/c5.conf
touch -d '2026-01-01 00:00:00' conf/a3.conf conf/b3.conf.bak conf/sub/c5.conf conf/sub conf
