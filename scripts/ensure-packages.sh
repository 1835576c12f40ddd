#!/usr/bin/env bash
# Installs the Debian packages given as arguments when any is missing.
# As root it runs apt-get itself; with passwordless sudo it uses sudo; otherwise it prints the
# exact command to run and fails.
set -euo pipefail

missing=()
for package in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

command="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
echo "Installing missing system packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
    sh -c "$command"
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo sh -c "$command"
else
    echo "Curlew needs these system packages. Install them with:" >&2
    echo "  sudo sh -c '$command'" >&2
    exit 1
fi
