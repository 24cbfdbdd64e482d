#!/usr/bin/env bash
# Record what the real cf-agent 3.21 prints for policies/functions/usemodule/usemodule.cf, with the
# fixture's module directory: the agent's CFENGINE_TEST_OVERRIDE_WORKDIR points at a temporary copy of
# usemodule/workdir (plus bin/cf-promises, which the agent's validation step needs there), so nothing is
# installed into /var/lib/cfengine3. The temporary path is written as $WORKDIR.
# Writes usemodule.expected (default level) and usemodule.info.expected (-I).
set -eu
dir="$(cd "$(dirname "$0")/../../policies/functions/usemodule" && pwd)"
wd=$(mktemp -d)
trap 'rm -rf "$wd"' EXIT
cp -r "$dir/workdir/." "$wd/"
mkdir -p "$wd/bin"
ln -s "$(command -v cf-promises)" "$wd/bin/cf-promises"
cd "$dir"
export CFENGINE_TEST_OVERRIDE_WORKDIR="$wd"
timeout 60 cf-promises -c -f ./usemodule.cf
timeout 60 cf-agent -K -f ./usemodule.cf | sed "s#$wd#\$WORKDIR#g" > usemodule.expected
timeout 60 cf-agent -K -I -f ./usemodule.cf | sed "s#$wd#\$WORKDIR#g" > usemodule.info.expected
echo "recorded usemodule.expected ($(wc -l < usemodule.expected) lines), usemodule.info.expected"
