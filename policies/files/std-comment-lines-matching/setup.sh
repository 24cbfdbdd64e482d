printf 'ListenAddress 0.0.0.0\n# already commented\nUseDNS yes\nUseDNS no\n' > cfg
chmod 0644 cfg
touch -d '2026-01-01 00:00:00' cfg
