printf 'top\n  [%%CFEngine nosuchclass:: %%]\n[%%CFEngine any:: %%]\n[%%CFEngine BEGIN %%]\nb1\n[%%CFEngine nosuchclass:: %%]\nhidden\n[%%CFEngine END %%]\nafter\n[%%CFEngine other %%]\ntail\n' > d.tmpl
chmod 0644 d.tmpl
touch -d '2026-01-01 00:00:00' d.tmpl
