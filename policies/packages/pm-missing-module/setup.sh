lib=$(cd "$(dirname "$0")/../lib" && pwd)
python3 "$lib/mkinv.py" "$(dirname "$0")/inventory.json"
