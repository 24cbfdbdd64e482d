mkdir -p etc
printf '# kernel tuning\nnet.ipv4.ip_forward = 0\nvm.swappiness=60\n' > etc/sysctl.conf
chmod 0755 etc
chmod 0644 etc/sysctl.conf
touch -d '2026-01-01 00:00:00' etc/sysctl.conf etc
