#!/usr/bin/env bash
# End-to-end test of the curses interface: runs `curlew` on the embedded demo in a detached tmux
# session at 120x40, drives it with keys and reads the screen with capture-pane.
# Usage: scripts/tui-e2e.sh [path/to/curlew]
set -uo pipefail

curlew=${1:-.build/debug/curlew}
sessions=$(mktemp -d)
socket="curlew-e2e-$$"
passed=0
failed=0

cleanup() {
    tmux -L "$socket" kill-server 2>/dev/null
    rm -rf "$sessions"
}
trap cleanup EXIT

screen() { tmux -L "$socket" capture-pane -p -t e2e; }
keys() { tmux -L "$socket" send-keys -t e2e "$@"; sleep 0.3; }

# expect NAME TEXT: waits up to 10 s for TEXT on the screen.
expect() {
    local name=$1 text=$2
    for _ in $(seq 1 100); do
        if screen | grep -qF -- "$text"; then
            passed=$((passed + 1))
            echo "ok: $name"
            return
        fi
        sleep 0.1
    done
    failed=$((failed + 1))
    echo "FAILED: $name (expected: $text)"
    screen | sed 's/^/    | /'
}

tmux -L "$socket" new-session -d -s e2e -x 120 -y 40 "$curlew demo tui --sessions $sessions; echo CURLEW-EXITED-\$?; sleep 60"
expect "the interface opens on Compose" " 1 Compose "
expect "the demo requests are listed" "batch of ten"

keys s
keys 2
expect "the sent request shows in Live with its status" "GET     200"
keys Enter
keys l l
expect "the timing tab shows the waterfall" "Timing waterfall"
expect "the timing tab shows DNS" "dns"
expect "the timing tab shows the wait phase" "wait"
expect "the timing tab shows the connection" "remote      127.0.0.1"

keys Escape 1 j j j j s 3
expect "the batch runs to 100 %" "100 % (10/10)"
expect "the batch shows its verdict" "batch ten requests · succeeded"
expect "the failing member shows as failed" "failed    500"

keys 1 j s 3
expect "the chain shows its verdict" "chain login -> profile · succeeded"
expect "the chain shows the captured token" "{{token}} = demo-"

keys 4
expect "the log browser lists the session just written" ".jsonl"
keys Enter
expect "the session opens with every entry" "of 14 entries"
keys / '~c 5xx' Enter
expect "the filter narrows the list" "1 of 14 entries · filter: ~c 5xx"
expect "the filter keeps the failing request" "status=500"

keys q
expect "curlew exits cleanly" "CURLEW-EXITED-0"
if screen | grep -qF " 1 Compose "; then
    failed=$((failed + 1)); echo "FAILED: the terminal was not restored"
else
    passed=$((passed + 1)); echo "ok: the terminal was restored"
fi
expect "the session log path is printed" "(14 entries)"

log=$(ls "$sessions"/*.jsonl 2>/dev/null | head -1)
messages=$(grep -c '"type":"message"' "$log" 2>/dev/null || echo 0)
if [ "$(head -1 "$log" | grep -c '"type":"header"')" = 1 ] && [ "$messages" = 14 ]; then
    passed=$((passed + 1)); echo "ok: the session log has its header and all 14 entries"
else
    failed=$((failed + 1)); echo "FAILED: the session log has $messages entries (expected 14)"
fi

echo "tui-e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
