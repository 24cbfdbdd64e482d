mkdir -p etc/ssh
printf '# OpenSSH server configuration\nInclude /etc/ssh/sshd_config.d/*.conf\n\n#Port 22\n#PermitRootLogin prohibit-password\nPasswordAuthentication yes\nKbdInteractiveAuthentication no\nUsePAM yes\nX11Forwarding yes\nPrintMotd no\nAcceptEnv LANG LC_*\nSubsystem sftp /usr/lib/openssh/sftp-server\n' > etc/ssh/sshd_config
chmod 0755 etc etc/ssh
chmod 0644 etc/ssh/sshd_config
touch -d '2026-01-01 00:00:00' etc/ssh/sshd_config etc/ssh etc
