printf '[%%CFEngine BEGIN %%]\nouter\n[%%CFEngine BEGIN %%]\ninner\n[%%CFEngine END %%]\n[%%CFEngine END %%]\n' > nested.tmpl
chmod 0644 nested.tmpl
touch -d '2026-01-01 00:00:00' nested.tmpl
