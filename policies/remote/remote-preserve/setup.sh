mkdir -p served dst
printf '#!/bin/sh\necho tool\n' > served/tool.sh
printf '#!/bin/sh\necho old\n' > dst/old.sh
printf 'key = value\n' > served/app.conf
chmod 0755 served dst
chmod 0751 served/tool.sh
chmod 0644 dst/old.sh served/app.conf
touch -d '2026-01-01 00:00:00' served/tool.sh dst/old.sh served/app.conf served dst
