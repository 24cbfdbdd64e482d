printf '' > e
printf 'x\ny\n' > g
chmod 0644 e g
touch -d '2026-01-01 00:00:00' e g
