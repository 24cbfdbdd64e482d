printf 'start\n{{#list}}\nunclosed section\n' > bad.mustache
chmod 0644 bad.mustache
touch -d '2026-01-01 00:00:00' bad.mustache
