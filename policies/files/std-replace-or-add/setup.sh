printf 'SELINUX=enforcing\nSELINUXTYPE=targeted\n' > selinux
printf 'other=1\n' > other
chmod 0644 selinux other
touch -d '2026-01-01 00:00:00' selinux other
