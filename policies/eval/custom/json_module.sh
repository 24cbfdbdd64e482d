#!/bin/sh
# JSON-based promise module for custom_module_json_based.cf: logs each request it got (validate at verbose
# level, evaluate and terminate at info level inside the JSON answer) and answers by the promiser's prefix;
# "badjson" answers with broken JSON and "empty" with no JSON at all, which desynchronises the exchange.
read -r header
read -r empty
printf 'json_probe 0.0.1 v1 json_based\n\n'
while IFS= read -r line; do
  [ -z "$line" ] && continue
  op=$(printf '%s' "$line" | sed -n 's/.*"operation":"\([a-z_]*\)".*/\1/p')
  promiser=$(printf '%s' "$line" | sed -n 's/.*"promiser":"\([^"]*\)".*/\1/p')
  esc=$(printf '%s' "$line" | sed 's/\\/\\\\/g; s/"/\\"/g')
  case "$op" in
    validate_promise)
      printf 'log_verbose=REQ %s\n{"operation":"validate_promise","promiser":"%s","result":"valid"}\n\n' "$line" "$promiser" ;;
    evaluate_promise)
      case "$promiser" in
        repair*) r=repaired ;;
        fail*) r=not_kept ;;
        *) r=kept ;;
      esac
      case "$promiser" in
        badjson*) printf '{"operation": nope\n\n' ;;
        empty*) printf 'log_info=only a log line\n\n' ;;
        *) printf '{"operation":"evaluate_promise","promiser":"%s","result":"%s","result_classes":["jc_%s"],"log":[{"level":"info","message":"EVAL %s"},{"level":"error","message":"err in json %s"}]}\n\n' "$promiser" "$r" "$r" "$esc" "$promiser" ;;
      esac ;;
    terminate)
      printf '{"operation":"terminate","result":"success","log":[{"level":"info","message":"TERM %s"}]}\n\n' "$esc"; exit 0 ;;
  esac
done
