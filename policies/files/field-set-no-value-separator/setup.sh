printf 'root:x:0:0:root:/root:/bin/bash\nalice:x:1001:1001:Alice:/home/alice:/bin/sh\nbob:x:1002:1002:Bob:/home/bob:/bin/bash\n' > passwd
chmod 0644 passwd
touch -d '2026-01-01 00:00:00' passwd
