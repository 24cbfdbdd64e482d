printf 'server {\n  listen {{port}};\n  server_name {{name}};\n{{#locations}}\n  location {{path}} { root {{root}}; }\n{{/locations}}\n}\n' > site.mustache
chmod 0644 site.mustache
touch -d '2026-01-01 00:00:00' site.mustache
