mkdir conf.d
chmod 0700 conf.d
touch -d '2026-01-01 00:00:00' conf.d
