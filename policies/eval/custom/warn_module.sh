#!/bin/sh
# Line-based promise module announcing action_policy, for custom_module_dry_run.cf and
# custom_module_action_warn.cf: logs the attributes it got and answers by the promiser's prefix.
read -r header
read -r empty
printf 'warn_module 0.0.1 v1 line_based action_policy\n\n'
op=""; promiser=""; attrs=""
while IFS= read -r line; do
  case "$line" in
    operation=*) op=${line#operation=} ;;
    promiser=*) promiser=${line#promiser=} ;;
    attribute_*) attrs="$attrs ${line#attribute_}" ;;
  esac
  [ -n "$line" ] && continue
  case "$op" in
    validate_promise)
      printf 'operation=validate_promise\npromiser=%s\nresult=valid\n\n' "$promiser" ;;
    evaluate_promise)
      case "$promiser" in
        quiet*) printf 'result=kept\n\n' ;;
        keep*) printf 'log_info=%s kept, attributes:%s\nresult=kept\n\n' "$promiser" "$attrs" ;;
        repair*) printf 'log_warning=%s would be repaired, attributes:%s\nresult=repaired\n\n' "$promiser" "$attrs" ;;
        warnfail*) printf 'log_warning=%s is not as promised\nresult=not_kept\n\n' "$promiser" ;;
        fail*) printf 'result=not_kept\n\n' ;;
      esac ;;
    terminate)
      printf 'operation=terminate\nresult=success\n\n'; exit 0 ;;
  esac
  op=""; promiser=""; attrs=""
done
