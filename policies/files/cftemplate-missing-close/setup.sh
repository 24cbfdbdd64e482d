printf 'first\n[%%CFEngine BEGIN%%]\nblock\n[%%CFEngine END %%]\n' > open.tmpl
chmod 0644 open.tmpl
touch -d '2026-01-01 00:00:00' open.tmpl
