printf 'PermitRootLogin yes\n# a comment about root\nPort 22\nroot_squash\n' > cfg
chmod 0644 cfg
touch -d '2026-01-01 00:00:00' cfg
