#!/usr/bin/env bash
# Debian packages the slow tests use: Chromium and its driver (browser tests), nginx and its
# njs module (the drop-in tests; njs answers POST), wrk (the serve benchmark), dealer and deal
# (the exported scripts run in them; they install into /usr/games), systemd (systemd-analyze
# verifies the example units), pipx (the wheel installed as users install a tool). Installs
# only what is missing; needs root.
set -euo pipefail
packages=(chromium chromium-driver fonts-dejavu-core nginx-light libnginx-mod-http-js wrk dealer deal systemd pipx)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
    log=$(mktemp)
    if ! { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
        tail -n 30 "$log" >&2
        echo "install-test-packages: could not install ${missing[*]}" >&2
        exit 1
    fi
    rm -f "$log"
fi
