mkdir web
printf '<html/>\n' > web/index.html
chmod 0700 web
chmod 0600 web/index.html
touch -d '2026-01-01 00:00:00' web/index.html web
