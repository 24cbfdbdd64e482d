printf '#!/bin/sh\necho hi\n' > tool.sh
printf 'same\n' > same.src
printf 'same\n' > same.dst
chmod 0750 tool.sh
chmod 0640 same.src
chmod 0600 same.dst
touch -d '2026-01-01 00:00:00' tool.sh same.src same.dst
