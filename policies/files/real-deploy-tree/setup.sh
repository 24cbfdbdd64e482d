mkdir -p staging/app-1.2/sbin staging/app-1.2/conf opt/app/conf
printf '#!/bin/sh\necho app 1.2\n' > staging/app-1.2/sbin/app
printf 'listen=8080\nlog=/var/log/app.log\n' > staging/app-1.2/conf/app.conf
printf 'App 1.2\n' > staging/app-1.2/README
printf 'listen=80\n' > opt/app/conf/app.conf
printf 'obsolete\n' > opt/app/conf/old2.conf
chmod 0755 staging staging/app-1.2 staging/app-1.2/sbin staging/app-1.2/conf opt opt/app opt/app/conf
chmod 0755 staging/app-1.2/sbin/app
chmod 0644 staging/app-1.2/conf/app.conf staging/app-1.2/README opt/app/conf/app.conf opt/app/conf/old2.conf
touch -d '2026-01-01 00:00:00' staging/app-1.2/sbin/app staging/app-1.2/conf/app.conf staging/app-1.2/README opt/app/conf/app.conf opt/app/conf/old2.conf staging/app-1.2/sbin staging/app-1.2/conf staging/app-1.2 staging opt/app/conf opt/app opt
