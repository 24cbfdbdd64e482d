mkdir -p tmpl/etc/app
printf 'a=1\n' > tmpl/etc/app/app.conf
printf 'top\n' > tmpl/readme
chmod 0755 tmpl tmpl/etc tmpl/etc/app
chmod 0644 tmpl/etc/app/app.conf tmpl/readme
touch -d '2026-01-01 00:00:00' tmpl/etc/app/app.conf tmpl/readme tmpl/etc/app tmpl/etc tmpl
