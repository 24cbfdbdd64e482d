printf '# sshd_config\n#PermitRootLogin yes\nPasswordAuthentication yes\nPort 22\n#X11Forwarding no\n#X11Forwarding yes\n' > sshd_config
chmod 0600 sshd_config
touch -d '2026-01-01 00:00:00' sshd_config
