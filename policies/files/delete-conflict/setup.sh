printf 'x\n' > both
chmod 0644 both
touch -d '2026-01-01 00:00:00' both
