mkdir -p etc/php
printf '[PHP]\nengine = On\nmemory_limit = 128M\n;upload_max_filesize = 2M\nupload_max_filesize = 2M\nexpose_php = On\n\n[Date]\n;date.timezone =\n\n[Session]\nsession.save_handler = files\n' > etc/php/php.ini
chmod 0755 etc etc/php
chmod 0644 etc/php/php.ini
touch -d '2026-01-01 00:00:00' etc/php/php.ini etc/php etc
