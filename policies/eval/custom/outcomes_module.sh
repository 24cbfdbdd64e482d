#!/bin/sh
# Line-based promise module for custom_module_outcomes.cf: logs each request it got (validate at verbose
# level, evaluate at info level, terminate at info level) and answers by the promiser's prefix: every
# result the agent knows (kept, repaired, not_kept with and without an error logged, error, an
# unacceptable word, none), invalid promises, result_classes, lines that are not key=value and each log level.
read -r header
read -r empty
printf 'probe_module 0.0.1 v1 line_based\n\n'
op=""; promiser=""; req=""
while IFS= read -r line; do
  case "$line" in
    operation=*) op=${line#operation=} ;;
    promiser=*) promiser=${line#promiser=} ;;
  esac
  if [ -n "$line" ]; then req="$req|$line"; continue; fi
  case "$op" in
    validate_promise)
      case "$promiser" in
        invalidquiet*) printf 'operation=validate_promise\npromiser=%s\nresult=invalid\n\n' "$promiser" ;;
        invalid*) printf 'operation=validate_promise\nlog_error=bad %s\npromiser=%s\nresult=invalid\n\n' "$promiser" "$promiser" ;;
        *) printf 'log_verbose=REQ%s\noperation=validate_promise\npromiser=%s\nresult=valid\n\n' "$req" "$promiser" ;;
      esac ;;
    evaluate_promise)
      printf 'log_info=EVAL%s\n' "$req"
      case "$promiser" in
        repair*) printf 'result=repaired\n\n' ;;
        failquiet*) printf 'result=not_kept\n\n' ;;
        fail*) printf 'log_error=failing %s\nresult=not_kept\n\n' "$promiser" ;;
        err*) printf 'result=error\n\n' ;;
        weird*) printf 'result=banana\n\n' ;;
        noresult*) printf 'foo=bar\n\n' ;;
        classes*) printf 'result_classes=rc_a,rc_b\nresult=kept\n\n' ;;
        garbage*) printf 'no equal sign here\nlog_warning=warned\nlog_notice=noticed\nlog_debug=debugged\nlog_critical=crit\nresult=kept\n\n' ;;
        *) printf 'result=kept\n\n' ;;
      esac ;;
    terminate)
      printf 'log_info=TERMINATE%s\noperation=terminate\nresult=success\n\n' "$req"; exit 0 ;;
  esac
  op=""; promiser=""; req=""
done
