#!/bin/sh
# Line-based promise module for custom_module_stderr.cf: writes to stderr when it starts, while evaluating
# "noisy", and before it exits while evaluating "crash" (no answer); the agent lets stderr through.
echo "stderr_module: starting" >&2
read -r header
read -r empty
printf 'stderr_module 0.0.1 v1 line_based\n\n'
op=""; promiser=""
while IFS= read -r line; do
  case "$line" in
    operation=*) op=${line#operation=} ;;
    promiser=*) promiser=${line#promiser=} ;;
  esac
  [ -n "$line" ] && continue
  case "$op" in
    validate_promise)
      printf 'operation=validate_promise\npromiser=%s\nresult=valid\n\n' "$promiser" ;;
    evaluate_promise)
      case "$promiser" in
        noisy*) echo "stderr_module: evaluating $promiser" >&2
                printf 'log_info=%s kept\nresult=kept\n\n' "$promiser" ;;
        crash*) echo "stderr_module: crashing on $promiser" >&2; exit 1 ;;
        *) printf 'result=kept\n\n' ;;
      esac ;;
    terminate)
      echo "stderr_module: terminating" >&2
      printf 'operation=terminate\nresult=success\n\n'; exit 0 ;;
  esac
  op=""; promiser=""
done
