printf 'x\ny\nx\n' > block.txt
printf 'existing\nx\n' > preserve-block-file
printf 'existing\nx\n' > preserve-all-lines
chmod 0644 block.txt preserve-block-file preserve-all-lines
touch -d '2026-01-01 00:00:00' block.txt preserve-block-file preserve-all-lines
