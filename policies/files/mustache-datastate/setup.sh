printf 'who={{vars.main.who}}\nlist:{{#vars.main.items}} {{.}}{{/vars.main.items}}\n{{#classes.any}}any is defined\n{{/classes.any}}{{^classes.nosuchclass}}nosuchclass is not defined\n{{/classes.nosuchclass}}' > t.mustache
chmod 0644 t.mustache
touch -d '2026-01-01 00:00:00' t.mustache
