#!/usr/bin/env bash
# Runs a command with TMPDIR set to a new directory, removed when the command ends (passed or
# not): the tests make hundreds of temporary workspaces and logs, which would otherwise pile up
# in /tmp with every run. Exits with the command's status.
set -u
scratch=$(mktemp -d /tmp/curlew-test.XXXXXX) || exit 1
trap 'rm -rf "$scratch"' EXIT
TMPDIR="$scratch" "$@"
