#!/usr/bin/env bash
# Runs every command of the README's ```console blocks: each line starting with "$ curlew",
# against demo servers started for the purpose (the README's http://127.0.0.1:8080 is replaced
# by the plain one's address, https://127.0.0.1:8443 by the TLS one's, whose certificates are in
# certs/), from a scratch directory. A command must exit with the status its line
# states ("# exits N"), else 0. Output lines in the blocks are illustrations and are not compared.
set -uo pipefail
cd "$(dirname "$0")/.."
curlew="$PWD/.build/debug/curlew"
readme="$PWD/README.md"
scratch=$(mktemp -d)
server_log=$(mktemp)
tls_log=$(mktemp)
cleanup() {
    [ -n "${server:-}" ] && kill "$server" 2>/dev/null
    [ -n "${tls_server:-}" ] && kill "$tls_server" 2>/dev/null
    rm -rf "$scratch" "$server_log" "$tls_log"
}
trap cleanup EXIT

"$curlew" demo-server --port 0 >"$server_log" 2>&1 &
server=$!
for _ in $(seq 1 100); do grep -q "listening on " "$server_log" && break; sleep 0.1; done
base=$(grep -o 'http://127.0.0.1:[0-9]*' "$server_log" | head -1)
[ -n "$base" ] || { echo "docs-test: the demo server did not start"; cat "$server_log"; exit 1; }
"$curlew" demo-server --tls --port 0 --cert-dir "$scratch/certs" >"$tls_log" 2>&1 &
tls_server=$!
for _ in $(seq 1 100); do grep -q "listening on " "$tls_log" && break; sleep 0.1; done
tls_base=$(grep -o 'https://127.0.0.1:[0-9]*' "$tls_log" | head -1)
[ -n "$tls_base" ] || { echo "docs-test: the TLS demo server did not start"; cat "$tls_log"; exit 1; }

# The README's workspace examples run on the repository's examples/, with the secrets file a
# user makes for the example workspace.
cp -r examples "$scratch/"
printf 'variables:\n  password: s3cret-demo-pw\n' >"$scratch/examples/workspace/curlew.secrets.yaml"
chmod 600 "$scratch/examples/workspace/curlew.secrets.yaml"

passed=0
failed=0
commands=$(awk '/^```console/ { inside = 1; next } /^```/ { inside = 0 } inside && /^\$ curlew/ { sub(/^\$ /, ""); print }' "$readme")
[ -n "$commands" ] || { echo "docs-test: no commands found in README.md"; exit 1; }
while IFS= read -r line; do
    expected=0
    if [[ "$line" =~ ^(.*[^[:space:]])[[:space:]]+#\ exits\ ([0-9]+)$ ]]; then
        line=${BASH_REMATCH[1]}
        expected=${BASH_REMATCH[2]}
    fi
    command=${line//http:\/\/127.0.0.1:8080/$base}
    command=${command//https:\/\/127.0.0.1:8443/$tls_base}
    command="\"$curlew\"${command#curlew}"
    (cd "$scratch" && timeout 60 bash -c "$command" </dev/null >"$scratch/.out" 2>&1)
    status=$?
    if [ "$status" -eq "$expected" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAILED: $line"
        echo "    exited $status, the README says $expected"
        sed 's/^/    | /' "$scratch/.out" | tail -5
    fi
done <<<"$commands"
echo "docs-test: $passed README commands exited as documented, $failed did not"
[ "$failed" -eq 0 ]
