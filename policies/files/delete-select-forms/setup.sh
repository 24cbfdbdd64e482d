printf '# comment\nkeep this\nDROP me\nvalue=1\n' > base
cp base startwith
cp base not-startwith
cp base match
cp base not-match
cp base not-contains
chmod 0644 base startwith not-startwith match not-match not-contains
touch -d '2026-01-01 00:00:00' base startwith not-startwith match not-match not-contains
