printf 'Hello {{name}}\n' > greet.mustache
chmod 0644 greet.mustache
touch -d '2026-01-01 00:00:00' greet.mustache
