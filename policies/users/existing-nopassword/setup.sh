useradd -u 23001 -s /bin/sh cfsimu1
