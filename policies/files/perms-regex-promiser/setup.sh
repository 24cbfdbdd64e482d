mkdir rx
printf 'a\n' > rx/a4.txt
printf 'b\n' > rx/b4.txt
printf 'c\n' > rx/c4.dat
chmod 0666 rx/a4.txt rx/b4.txt rx/c4.dat
chmod 0755 rx
touch -d '2026-01-01 00:00:00' rx/a4.txt rx/b4.txt rx/c4.dat rx
