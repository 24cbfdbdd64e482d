mkdir -p site/app211 site/app212 site/other
printf 'x\n' > site/app211/config
printf 'x\n' > site/app212/config
printf 'x\n' > site/other/config
chmod 0755 site site/app211 site/app212 site/other
chmod 0600 site/app211/config site/app212/config site/other/config
touch -d '2026-01-01 00:00:00' site/app211/config site/app212/config site/other/config site/app211 site/app212 site/other site
