mkdir -p www/cache
printf 'x\n' > www/index0.html
printf 'x\n' > www/script0.cgi
printf 'x\n' > www/cache/page.html
chmod 0755 www www/cache
chmod 0600 www/index0.html www/script0.cgi www/cache/page.html
touch -d '2026-01-01 00:00:00' www/index0.html www/script0.cgi www/cache/page.html www/cache www
