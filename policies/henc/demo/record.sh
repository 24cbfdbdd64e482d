#!/bin/sh
# Re-record policies/henc/demo/recorded/<profile>.{out,classes,vars} from the real cf-agent 3.21, run
# "as" every shipped host profile in namespaces built from it, with the Perl reference as modules/henc
# (tests/henc_demo.rs does the work; the same run checks that `cfsim henc` as the module gives identical
# output), and the cf-promises ASTs of the demo files. Needs root (unshare, veth) and cf-agent; writes
# only under target/tmp and the recordings.
set -eu
cd "$(dirname "$0")/../../.."
command -v cf-agent >/dev/null || { echo "record.sh: cf-agent is not installed" >&2; exit 1; }
CFSIM_RECORD=1 cargo test --test henc_demo demo_recordings_match_real_agent -- --nocapture
# The cf-promises ASTs of the demo files (policies/henc/demo/ast/).
CFSIM_RECORD=1 cargo test --test henc_demo_static ast_recordings_match_live_cf_promises
git status --short -- policies/henc/demo/recorded policies/henc/demo/ast
