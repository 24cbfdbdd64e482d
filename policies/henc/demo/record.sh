#!/bin/sh
# Re-record policies/henc/demo/recorded/<profile>.out and .classes from the real cf-agent 3.21, run "as"
# every shipped host profile in namespaces built from it, with the Perl reference as modules/henc
# (tests/henc_demo.rs does the work; the same run checks `cfsim henc` as the module gives identical
# output). Needs root (unshare, veth) and cf-agent; writes only under target/tmp and the recordings.
set -eu
cd "$(dirname "$0")/../../.."
command -v cf-agent >/dev/null || { echo "record.sh: cf-agent is not installed" >&2; exit 1; }
CFSIM_RECORD=1 cargo test --test henc_demo demo_recordings_match_real_agent -- --nocapture
git status --short -- policies/henc/demo/recorded
