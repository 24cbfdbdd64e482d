#!/bin/sh
# Minimal line-based custom promise module for custom_module_line_based.cf.
# Promisers starting with "repair" are repaired, with "fail" not kept (logged as error), anything else kept.
read -r header
read -r empty
printf 'foo_module 0.0.1 v1 line_based\n\n'
op=""; promiser=""
while IFS= read -r line; do
  case "$line" in
    operation=*) op=${line#operation=} ;;
    promiser=*) promiser=${line#promiser=} ;;
    "")
      case "$op" in
        validate_promise)
          printf 'operation=validate_promise\npromiser=%s\nresult=valid\n\n' "$promiser" ;;
        evaluate_promise)
          case "$promiser" in
            repair*) result=repaired; level=info ;;
            fail*) result=not_kept; level=error ;;
            *) result=kept; level=info ;;
          esac
          printf 'operation=evaluate_promise\npromiser=%s\nlog_%s=foo %s: %s\nresult=%s\n\n' "$promiser" "$level" "$result" "$promiser" "$result" ;;
        terminate)
          printf 'operation=terminate\nresult=success\n\n'; exit 0 ;;
      esac
      op=""; promiser="" ;;
  esac
done
