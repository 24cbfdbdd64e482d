printf 'allow 10.0.0.1\nallow 10.0.0.2\ndeny all\n# comment\n' > rules.src
printf '' > rules
chmod 0644 rules.src rules
touch -d '2026-01-01 00:00:00' rules.src rules
