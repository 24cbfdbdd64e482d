printf 'wheel:x:10:alice,bob\nstaff:x:50:\n' > group
chmod 0644 group
touch -d '2026-01-01 00:00:00' group
