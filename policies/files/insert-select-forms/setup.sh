printf 'allow 10.0.0.1\ndeny 10.0.0.2\n# allow comment\nallow 10.0.0.3 # trusted\n' > src.txt
printf '' > not-startwith
printf '' > match
printf '' > not-match
printf '' > contains
printf '' > not-contains
chmod 0644 src.txt not-startwith match not-match contains not-contains
touch -d '2026-01-01 00:00:00' src.txt not-startwith match not-match contains not-contains
