lib=$(cd "$(dirname "$0")/../lib" && pwd)
python3 "$lib/mkinv.py" "$(dirname "$0")/inventory.json"
cp "$lib/fakepkg" "$lib/legacy-list" "$lib/legacy-add" "$lib/legacy-remove" . && chmod 755 fakepkg legacy-*
