printf 'ServerName $(main.server)\nPort $(main.port)\nUnknown $(main.nosuch)\n' > httpd.tmpl
chmod 0644 httpd.tmpl
touch -d '2026-01-01 00:00:00' httpd.tmpl
