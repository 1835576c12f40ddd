#!/usr/bin/env bash
# End-to-end test of the curses interface, started the way users start it: first with exactly the
# command `make run` runs (from the repository root, so the session log goes to Sessions/), then
# through `make run` itself. Runs in a detached tmux session at 120x40, drives it with keys and
# reads the screen with capture-pane. Run from the repository root after a build.
set -uo pipefail

cd "$(dirname "$0")/.."
run_command=$(make -s --no-print-directory print-run-command)
socket="curlew-e2e-$$"
passed=0
failed=0
# Session logs this test's runs wrote, by the path each printed when it quit; removed at the end.
# Only these: a log a user's own session is writing to Sessions/ meanwhile is theirs.
written_logs=()

cleanup() {
    tmux -L "$socket" kill-server 2>/dev/null
    [ ${#written_logs[@]} -eq 0 ] || rm -f "${written_logs[@]}"
}
trap cleanup EXIT

screen() { tmux -L "$socket" capture-pane -p -t e2e; }
# The log the run on the screen writes: named in the status bar while it runs ("log PATH"), and
# when it quits ("Session log: PATH (N entries)"). Remembered at both, so a run that hangs or is
# cut short still has its log removed.
remember_log() {
    local path
    path=$(screen | sed -n -e 's/.* log \(Sessions\/[0-9_-]*\.jsonl\).*/\1/p' -e 's/^Session log: \(.*\.jsonl\) ([0-9]* entr.*/\1/p' | tail -1)
    [ -z "$path" ] || written_logs+=("$path")
}

# A session that only keeps the tmux server up: when the last session is killed the server shuts
# down, and a session opened while it does so dies with it.
tmux -L "$socket" new-session -d -s keeper "sleep 3600"

# open_session WIDTH HEIGHT COMMAND: replaces the e2e session with one running COMMAND, its exit
# code printed after it and kept on the screen for a minute.
open_session() {
    tmux -L "$socket" kill-session -t e2e 2>/dev/null
    for _ in $(seq 1 50); do tmux -L "$socket" has-session -t e2e 2>/dev/null || break; sleep 0.1; done
    tmux -L "$socket" new-session -d -s e2e -x "$1" -y "$2" "$3; echo CURLEW-EXITED-\$?; sleep 60"
}
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

open_session 120 40 "$run_command"
expect "the interface opens on Compose" " 1 Compose "
remember_log
expect "the demo workspace is listed" "ten requests"

keys s
keys 2
expect "the sent request shows in Live with its status" "GET     200"
keys Enter
keys l l
expect "the timing tab shows the waterfall" "Timing waterfall"
expect "the timing tab shows DNS" "dns"
expect "the timing tab shows the wait phase" "wait"
expect "the timing tab shows the connection" "remote      127.0.0.1"

keys Escape 1 j j j j j j s 3
expect "the batch runs to 100 %" "100 % (10/10)"
expect "the batch shows its verdict" "batch ten requests · succeeded"
expect "the failing member shows as failed" "failed    500"

keys 1 j s 3
expect "the chain shows its verdict" "chain login -> profile · succeeded"
expect "the chain shows the captured token, hidden" "{{token}} = [REDACTED]"

keys 4
expect "the log browser lists the session just written" ".jsonl"
keys Enter
expect "the session opens with every entry" "of 14 entries"
keys / '~c 5xx' Enter
expect "the filter narrows the list" "1 of 14 entries · filter: ~c 5xx"
expect "the filter keeps the failing request" "status=500"
# The opened log is this session's own: a request sent now is appended and followed in.
keys F f 1 k k k k k k k s 4
expect "the opened log follows the session's new entry" "15 of 15 entries · following newest"

keys q
expect "curlew exits cleanly" "CURLEW-EXITED-0"
if screen | grep -qF " 1 Compose "; then
    failed=$((failed + 1)); echo "FAILED: the terminal was not restored"
else
    passed=$((passed + 1)); echo "ok: the terminal was restored"
fi
expect "the session log path is printed" "(15 entries)"
remember_log
log=${written_logs[${#written_logs[@]}-1]:-}

# A terminal without an alternate screen, resized while the interface runs: quitting leaves no
# fragment of the last frame.
open_session 120 40 "TERM=vt100 $run_command"
expect "the interface opens without an alternate screen" "ten requests"
tmux -L "$socket" resize-window -t e2e -x 90 -y 30
sleep 0.5
keys q
expect "curlew exits after the resize" "CURLEW-EXITED-0"
if screen | grep -qE "Compose|single GET|ten requests"; then
    failed=$((failed + 1)); echo "FAILED: fragments of the interface stayed on the screen"; screen | sed 's/^/    | /'
else
    passed=$((passed + 1)); echo "ok: no fragment of the interface stays after quitting"
fi

messages=$(grep -c '"type":"message"' "$log" 2>/dev/null || echo 0)
if [ "$(head -1 "$log" | grep -c '"type":"header"')" = 1 ] && [ "$messages" = 15 ]; then
    passed=$((passed + 1)); echo "ok: the session log has its header and all 15 entries"
else
    failed=$((failed + 1)); echo "FAILED: the session log has $messages entries (expected 15)"
fi

# The workbench: the same command in a directory with a curlew.yaml opens that workspace. Create a
# request, send it, see its answer beside the editor at 160 columns, save it, quit, start again
# and find it; the environment switcher changes what the header shows.
tmux -L "$socket" kill-session -t e2e 2>/dev/null
repository=$(pwd)
workbench=$(mktemp -d)
server_log="$workbench/server.log"
.build/debug/curlew demo-server --port 0 > "$server_log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do grep -q "listening on" "$server_log" && break; sleep 0.1; done
base=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$server_log")
cat > "$workbench/curlew.yaml" <<YAML
# kept across saves
config:
  baseURL: "{{base}}"
environments:
  local: {base: "$base"}
  nowhere: {base: "http://127.0.0.1:9"}
requests:
  hello: {url: /get}
  log in: {url: /login, json: {username: demo, password: curlew}}
  me: {url: /me, headers: {Authorization: "Bearer {{token}}"}}
groups:
  flow:
    chain:
      - {request: log in, capture: {token: \$.token}}
      - me
YAML
# The editor the body is written in: a script that reads a line from the keyboard, as an
# interactive editor does (it must hold the terminal to), and writes it as JSON.
cat > "$workbench/editor.sh" <<'SCRIPT'
#!/bin/sh
IFS= read -r line
printf '{"made": "%s"}\n' "$line" > "$1"
SCRIPT
chmod 700 "$workbench/editor.sh"
# `make run`'s command, from the workspace's directory (its session logs go to Sessions/ there).
start_workbench() {
    open_session 160 45 "cd $workbench && EDITOR=$workbench/editor.sh $repository/$run_command"
}
start_workbench
expect "a curlew.yaml here opens as the workbench" "curlew.yaml · env local"
keys n Enter C-u
tmux -L "$socket" send-keys -t e2e -l "made in e2e"; sleep 0.3
# Method POST, URL /post, body mode JSON, then the body from $EDITOR.
keys Enter j l j Enter
tmux -L "$socket" send-keys -t e2e -l "/post"; sleep 0.3
keys Enter j j j l l j o
sleep 0.5
tmux -L "$socket" send-keys -t e2e -l "by the editor"; sleep 0.3
keys Enter
expect "the body comes back from \$EDITOR, which read the keyboard, checked as JSON" "✓ JSON"
expect "the new request is marked unsaved" "● 1 unsaved"
keys s
expect "its answer shows beside the editor" "HTTP/1.1 200"
expect "the answer echoes the body written in the editor" '"made": "by the editor"'

keys w
expect "w saves it to the file" "saved made in e2e"
printf '### from a .http file\nGET {{base}}/headers\n' > "$workbench/more.http"
keys :
tmux -L "$socket" send-keys -t e2e -l "import more.http"; sleep 0.3
keys Enter
expect ":import adds another tool's requests" "imported 1 request from more.http"
keys Escape 1 g L
expect "latency mode fills in as the answers arrive" "50/50 answered"
expect "latency mode shows the percentiles" "p99"
keys Escape 1 g j S
expect "S puts a chain's first step in the editor" "flow · step 1/2"
keys s
expect "the next step waits, resolved with the capture" "token="
keys s
expect "the stepped chain ends" "all 2 steps done"
keys Escape 2 g m j m =
expect "two marked exchanges compare side by side" "Compare"
expect "the comparison shows what differs" "timing wait"
keys Escape 1
# A group defined in the interface: N, a name, w saves it into the file, s runs it.
keys g N Enter C-u
tmux -L "$socket" send-keys -t e2e -l "e2e batch"; sleep 0.3
keys Enter w
expect "N defines a group and w saves it" "saved e2e batch"
keys s
expect "s runs the group as edited" "batch e2e batch succeeded"
keys Escape g H
expect "H shows the request's history" "History  hello"
keys Escape
# A curl command pasted (bracketed) into Compose becomes a request, sent with s.
tmux -L "$socket" set-buffer -b e2e "curl -H 'X-From: e2e-paste' $base/headers"
tmux -L "$socket" paste-buffer -p -b e2e -t e2e; sleep 0.3
expect "a pasted curl command becomes a request" "the curl command is now"
keys s
expect "the pasted request is sent with its header" "e2e-paste"
# The same over lines with CRLF ends and continuations, as a Windows clipboard gives it.
printf 'curl \\\r\n  -H "X-From: e2e-crlf" \\\r\n  %s/headers\r\n' "$base" > "$workbench/crlf.txt"
tmux -L "$socket" load-buffer -b crlf "$workbench/crlf.txt"
keys Escape 1
tmux -L "$socket" paste-buffer -p -r -b crlf -t e2e; sleep 0.3
expect "a curl command pasted with CRLF continuations becomes a request" "the curl command is now"
keys s
expect "the CRLF-pasted request is sent with its header" "e2e-crlf"
# Pasted as a terminal passes it on (tmux, like xterm, turns each line feed into a carriage
# return, so each CRLF arrives as two).
printf 'curl \\\r\n  -H "X-From: e2e-crcr" \\\r\n  %s/headers\r\n' "$base" > "$workbench/crcr.txt"
tmux -L "$socket" load-buffer -b crcr "$workbench/crcr.txt"
keys Escape 1
tmux -L "$socket" paste-buffer -p -b crcr -t e2e; sleep 0.3
expect "a CRLF curl command the terminal passes on as CR CR becomes a request" "the curl command is now"
keys s
expect "the CR CR-pasted request is sent with its header" "e2e-crcr"
# A paste of bytes that are not UTF-8 never takes the keyboard with it.
printf 'ab\377\376cd' > "$workbench/bad.txt"
tmux -L "$socket" load-buffer -b bad "$workbench/bad.txt"
keys Escape
tmux -L "$socket" paste-buffer -p -b bad -t e2e; sleep 1.5
keys "?"
expect "after a paste that is not UTF-8 the keys still work" "Keys (any other key closes"
# A DEL pasted into a prompt is kept and shown as ␡, not read as the backspace key.
paste_into_prompt() {
    local name=$1 bytes=$2 shown=$3
    printf "$bytes" > "$workbench/prompt-paste.txt"
    tmux -L "$socket" load-buffer -b prompt "$workbench/prompt-paste.txt"
    keys Escape :
    tmux -L "$socket" paste-buffer -p -r -b prompt -t e2e; sleep 0.5
    expect "$name" "$shown"
}
paste_into_prompt "a pasted DEL shows as ␡ in a prompt" 'x\177y' ":x␡y"
# Pasted text that carries an end marker is still text to its end: what follows the marker is
# not read as keys (a CR there would run the prompt's command, a digit switch panes), and a
# mouse report inside it is dropped. A second paste right behind the first is a paste too.
paste_into_prompt "pasted text that carries an end marker stays text, a line end and all" 'x\033[201~\033[<35;10;5My\r' ":xy↵"
paste_into_prompt "a second paste right behind the first is read as a paste" 'a\033[201~\033[200~b' ":ab"
# A byte that is not UTF-8 inside a paste shows as �, and what follows it is kept.
paste_into_prompt "a paste keeps what follows a byte that is not UTF-8" 'ab\377cd-after' ":ab�cd-after"
# A paste's end marker with no paste open (pasted text can carry one) is dropped, not read as
# Esc and the keys [ 2 0 1 ~, which would switch panes.
keys Escape 2
tmux -L "$socket" send-keys -t e2e -l $'\e[201~'; sleep 0.5
expect "a stray paste end marker is not read as keys" "f follow"
# A control sequence curses does not know (a cursor report, a key of another terminal) is
# dropped whole, not read as Esc and keys: its last byte would act (`p` pauses Live, `s` sends).
tmux -L "$socket" send-keys -t e2e -l $'\e[999;999R'; sleep 0.3
tmux -L "$socket" send-keys -t e2e -l $'\e[5p'; sleep 0.3
tmux -L "$socket" send-keys -t e2e -l $'\eOp'; sleep 0.3
# One cut short by another ESC is dropped, and that ESC starts a sequence of its own.
tmux -L "$socket" send-keys -t e2e -l $'\e[1;\e[5p'; sleep 0.3
# Control strings (a terminal's answers to queries) and SS3 with parameters, likewise.
tmux -L "$socket" send-keys -t e2e -l $'\e]0;p\a'; sleep 0.3
tmux -L "$socket" send-keys -t e2e -l $'\eP>|p\e\\'; sleep 0.3
tmux -L "$socket" send-keys -t e2e -l $'\e_p\e\\'; sleep 0.3
tmux -L "$socket" send-keys -t e2e -l $'\e]11;rgb:0/0/0\e[5p'; sleep 0.3
tmux -L "$socket" send-keys -t e2e -l $'\eO1;5p'; sleep 0.5
if screen | grep -qF "PAUSED"; then
    failed=$((failed + 1)); echo "FAILED: an unknown control sequence is not read as keys (Live paused)"; screen | sed 's/^/    | /'
else
    passed=$((passed + 1)); echo "ok: an unknown control sequence is not read as keys"
fi
keys p
expect "p still pauses Live after them" "PAUSED"
keys p
keys 1 "?"
keys Escape g V
expect "V shows where the request goes" "sends GET $base/get"
keys E
expect "E switches the environment" "env nowhere"
expect "the resolved URL follows the environment" "sends GET http://127.0.0.1:9/get"
keys V
# A curl command whose URL is longer than a request head can be (a paste of 1.1 MB, more than
# 1 MiB) arrives whole and is refused at once with the URL's whole size, not cut at 1 MiB into a
# shorter request, nor sent and failed as libcurl's "Out of memory".
{ printf 'curl %s/get?pad=' "$base"; head -c 1100000 /dev/zero | tr '\0' a; } > "$workbench/long.txt"
tmux -L "$socket" load-buffer -b long "$workbench/long.txt"
tmux -L "$socket" paste-buffer -p -b long -t e2e
expect "a pasted curl command with a 1.1 MB URL becomes a request" "the curl command is now"
keys s
expect "an over-long URL is refused with its whole size" "the URL is 1.05 MiB"
keys q
expect "quitting with the pasted request unsaved asks first" "Quit without saving?"
keys y
expect "the workbench exits cleanly" "CURLEW-EXITED-0"
if grep -q "^  made in e2e:" "$workbench/curlew.yaml" && grep -q "^# kept across saves" "$workbench/curlew.yaml" \
    && grep -qF 'made: "by the editor"' "$workbench/curlew.yaml" && grep -q "^  e2e batch:" "$workbench/curlew.yaml"; then
    passed=$((passed + 1)); echo "ok: the file has the new request, the new group and its comment"
else
    failed=$((failed + 1)); echo "FAILED: the workspace file lacks the saved request"; sed 's/^/    | /' "$workbench/curlew.yaml"
fi
start_workbench
expect "starting again finds the saved request" "POST made in e2e"
keys q
expect "the workbench exits again" "CURLEW-EXITED-0"
kill "$server_pid" 2>/dev/null
rm -rf "$workbench"

# A log larger than the first screen, opened as users open one: the entries past the first screen
# are indexed in the background, and the screen says so when they are all in, with no key pressed.
big_log=$(mktemp --suffix=.jsonl)
head -1 "$log" > "$big_log"
body=$(grep '"type":"message"' "$log")
for _ in $(seq 1 2143); do printf '%s\n' "$body"; done >> "$big_log"
big_count=$(grep -c '"type":"message"' "$big_log")
open_session 120 40 "${run_command} tui $big_log"
expect "a large log is indexed to its end without a key" "$big_count of $big_count entries"
if screen | grep -qF "(indexing…)"; then
    failed=$((failed + 1)); echo "FAILED: the screen still says indexing"
else
    passed=$((passed + 1)); echo "ok: the finished index is drawn"
fi
keys / '~c 5xx' Enter
expect "the filter runs over every entry" "2143 of $big_count entries · filter: ~c 5xx"
keys q
expect "the log browser exits" "CURLEW-EXITED-0"
rm -f "$big_log"

# Told to stop (SIGTERM from a service manager, SIGHUP from a closed terminal), the interface
# ends as on a quit: the terminal is restored, what it made in $TMPDIR (a HAR file's converted
# log, the demo's certificates) is removed, and it ends by the signal (128 + its number).
# stop_by_signal NAME SIGNAL STATUS: signals the curlew running in the e2e session.
stop_by_signal() {
    local pane_pid pid
    pane_pid=$(tmux -L "$socket" display-message -p -t e2e '#{pane_pid}')
    pid=$(pgrep -P "$pane_pid" -x curlew | head -1)
    if [ -z "$pid" ]; then
        failed=$((failed + 1)); echo "FAILED: $1: no curlew process under the pane"; return
    fi
    kill "-$2" "$pid"
    expect "$1 ends by the signal" "CURLEW-EXITED-$3"
    if screen | grep -qF " 1 Compose " || screen | grep -qF " 4 Logs "; then
        failed=$((failed + 1)); echo "FAILED: $1: the terminal was not restored"
    else
        passed=$((passed + 1)); echo "ok: $1 restores the terminal"
    fi
    if [ -n "$(ls -A "$private_tmp")" ]; then
        failed=$((failed + 1)); echo "FAILED: $1 left files in TMPDIR: $(ls -A "$private_tmp")"
    else
        passed=$((passed + 1)); echo "ok: $1 leaves nothing in TMPDIR"
    fi
}
private_tmp=$(mktemp -d)
har_file=$(mktemp --suffix=.har)
"$run_command" export har "$log" -o "$har_file" > /dev/null
open_session 120 40 "TMPDIR=$private_tmp ${run_command} tui $har_file"
expect "a HAR file opens in the log browser" "of 15 entries"
stop_by_signal "SIGTERM in the log browser" TERM 143
open_session 120 40 "TMPDIR=$private_tmp ${run_command}"
expect "the demo opens with a private TMPDIR" "ten requests"
remember_log
stop_by_signal "SIGHUP in the demo" HUP 129
remember_log
rm -rf "$private_tmp" "$har_file"

# Started in a process group of its own (`timeout` makes one), the interface gets no SIGHUP when
# its terminal goes: it reads end-of-file instead, and ends rather than spinning on it (found by a
# new user's trial: it used a core until killed by its pid).
tmux -L "$socket" new-session -d -s orphan -x 120 -y 40 "cd $PWD && timeout 120 $PWD/$run_command tui $log"
for _ in $(seq 1 100); do orphan_pid=$(pgrep -f "^$PWD/$run_command tui $log" | head -1); [ -n "$orphan_pid" ] && break; sleep 0.1; done
sleep 1
tmux -L "$socket" kill-session -t orphan
for _ in $(seq 1 50); do kill -0 "$orphan_pid" 2>/dev/null || break; sleep 0.1; done
if [ -n "$orphan_pid" ] && ! kill -0 "$orphan_pid" 2>/dev/null; then
    passed=$((passed + 1)); echo "ok: an interface in a group of its own ends when its terminal goes"
else
    failed=$((failed + 1)); echo "FAILED: an interface in a group of its own kept running after its terminal went (pid ${orphan_pid:-none})"
    [ -z "$orphan_pid" ] || kill "$orphan_pid" 2>/dev/null
fi

# A workspace path ending in / is refused, and no stray file is left (found by a new user's
# trial: `--workspace z/` created a file named z, then failed).
slash_dir=$(mktemp -d)
open_session 120 40 "cd $slash_dir && $PWD/$run_command tui --workspace z/"
expect "a workspace path ending in / is refused" "ends with / and so names a directory"
expect "that refusal exits 2" "CURLEW-EXITED-2"
if [ -e "$slash_dir/z" ]; then
    failed=$((failed + 1)); echo "FAILED: --workspace z/ left a file z behind"
else
    passed=$((passed + 1)); echo "ok: --workspace z/ leaves nothing behind"
fi
rm -rf "$slash_dir"

# `curlew tui FILE.yaml` opens the workspace, not the log browser (found by a new user's trial:
# the file was read as a session log and refused).
yaml_dir=$(mktemp -d)
printf 'requests:\n  yaml argument: {url: "http://127.0.0.1:9/x"}\n' > "$yaml_dir/api.yaml"
open_session 120 40 "cd $yaml_dir && $PWD/$run_command tui api.yaml"
expect "a .yaml argument opens as the workspace" "yaml argument"
keys q
expect "quitting it exits 0" "CURLEW-EXITED-0"
# A .yaml that does not exist yet is created, as --workspace creates it.
open_session 120 40 "cd $yaml_dir && $PWD/$run_command tui new.yaml"
expect "a missing .yaml opens as a new workspace" "new.yaml"
keys q
expect "quitting the new workspace exits 0" "CURLEW-EXITED-0"
if [ -f "$yaml_dir/new.yaml" ]; then
    passed=$((passed + 1)); echo "ok: the missing .yaml was created"
else
    failed=$((failed + 1)); echo "FAILED: tui new.yaml did not create the file"
fi
# A directory holding a curlew.yaml opens that workspace (found by a new user's trial: it was
# refused as not a session log).
mkdir "$yaml_dir/ws"
printf 'requests:\n  directory argument: {url: "http://127.0.0.1:9/x"}\n' > "$yaml_dir/ws/curlew.yaml"
open_session 120 40 "cd $yaml_dir && $PWD/$run_command tui ws"
expect "a directory with a curlew.yaml opens as the workspace" "directory argument"
keys q
expect "quitting it exits 0" "CURLEW-EXITED-0"
rm -rf "$yaml_dir"

# `make run` itself: it checks the system packages, finds the build up to date and opens the
# interface; quitting at once sends nothing and leaves no session log behind.
tmux -L "$socket" kill-session -t e2e 2>/dev/null
open_session 120 40 "make run"
for _ in $(seq 1 600); do screen | grep -qF " 1 Compose " && break; sleep 0.1; done
expect "make run shows the first frame" "ten requests"
keys q
expect "make run exits cleanly" "CURLEW-EXITED-0"
expect "a session that sent nothing says so" "no session log was written"

echo "tui-e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
