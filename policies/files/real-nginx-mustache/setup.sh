mkdir -p templates data etc
printf 'user {{user}};\nworker_processes {{workers}};\n\nhttp {\n{{#sites}}\n  server {\n    listen {{port}};\n    server_name {{name}};\n    root {{root}};\n  }\n{{/sites}}\n}\n' > templates/nginx.conf.mustache
printf '{\n  "user": "www-data",\n  "workers": 4,\n  "sites": [\n    { "name": "example.org", "port": 80, "root": "/var/www/example" },\n    { "name": "api.example.org", "port": 8080, "root": "/var/www/api" }\n  ]\n}\n' > data/site.json
chmod 0755 templates data etc
chmod 0644 templates/nginx.conf.mustache data/site.json
touch -d '2026-01-01 00:00:00' templates/nginx.conf.mustache data/site.json templates data etc
