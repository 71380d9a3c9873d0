#!/usr/bin/env bash
# Install what the real-MediaWiki test harness needs, idempotently:
#   * PHP CLI + the extensions MediaWiki needs (apt-get, --no-install-recommends);
#   * Debian's `mediawiki` + `mediawiki-classes` packages, downloaded with
#     `apt-get download` and unpacked with `dpkg -x` into a cache folder (the
#     package itself depends on apache2, so it is never installed).
#
# The unpacked tree is rewritten so it works from any folder: the package's
# absolute symlinks into /etc/mediawiki and /var/lib/mediawiki are replaced by
# local folders/relative links. The result is $BSM_MEDIAWIKI_HOME/core, a plain
# MediaWiki install path (IP). Per-wiki state (LocalSettings.php, SQLite files,
# caches) never lives there: see start.sh.
#
# Env:
#   BSM_MEDIAWIKI_HOME  cache folder (default /var/cache/bridgeshape-mirror/mediawiki)
#   BSM_APT_UPDATE=0    never run `apt-get update` (default: run it once, only when
#                       something must be fetched)
#
# A second run is a fast no-op (checks binaries + a stamp file).
set -euo pipefail

MW_HOME="${BSM_MEDIAWIKI_HOME:-/var/cache/bridgeshape-mirror/mediawiki}"
PHP_PKGS=(php-cli php-sqlite3 php-mbstring php-xml php-intl)
STAMP="$MW_HOME/core/.bsm-unpacked"

log() { printf '[mediawiki/install-deps] %s\n' "$*" >&2; }

SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
fi
export DEBIAN_FRONTEND=noninteractive

APT_OPTS=(-o DPkg::Lock::Timeout=300)
APT_LOG="$(mktemp /tmp/bsm-mediawiki-apt.XXXXXX.log)"
# Run a command with its (noisy) output in $APT_LOG; show the tail on failure.
quiet() {
    if ! "$@" >>"$APT_LOG" 2>&1; then
        tail -n 40 "$APT_LOG" >&2
        log "ERROR: failed: $* (full log: $APT_LOG)"
        exit 1
    fi
}

apt_updated=0
apt_update_once() {
    if [ "$apt_updated" = 1 ] || [ "${BSM_APT_UPDATE:-1}" = 0 ]; then return 0; fi
    log "apt-get update"
    quiet $SUDO apt-get "${APT_OPTS[@]}" update -qq
    apt_updated=1
}

php_ok() {
    command -v php >/dev/null 2>&1 || return 1
    php -r 'exit((extension_loaded("pdo_sqlite") && extension_loaded("mbstring")
        && extension_loaded("intl") && extension_loaded("xml")
        && extension_loaded("dom")) ? 0 : 1);' 2>/dev/null
}

# --- 1. PHP ---------------------------------------------------------------
if php_ok; then
    log "PHP ok: $(php -r 'echo PHP_VERSION;')"
else
    apt_update_once
    log "apt-get install ${PHP_PKGS[*]}"
    quiet $SUDO apt-get "${APT_OPTS[@]}" install -y -qq --no-install-recommends "${PHP_PKGS[@]}"
    php_ok || { log "ERROR: PHP extensions still missing after install"; exit 1; }
fi

# --- 2. MediaWiki tree ------------------------------------------------------
mw_ok() { [ -f "$STAMP" ] && [ -f "$MW_HOME/core/maintenance/install.php" ]; }
if mw_ok; then
    log "MediaWiki ok: $MW_HOME/core ($(cat "$STAMP"))"
    rm -f "$APT_LOG"
    exit 0
fi

mkdir -p "$MW_HOME"
# Two concurrent runs: the second waits, then finds the work done.
exec 9>"$MW_HOME/.lock"
flock 9
if mw_ok; then
    log "MediaWiki ok: $MW_HOME/core ($(cat "$STAMP"))"
    rm -f "$APT_LOG"
    exit 0
fi
work="$(mktemp -d "$MW_HOME/.unpack.XXXXXX")"
trap 'rm -rf "$work"' EXIT

apt_update_once
log "apt-get download mediawiki mediawiki-classes"
# apt-get download writes into the current folder; the _apt sandbox user may
# not be able to write there (harmless warning), so let root do it.
( cd "$work" && quiet apt-get download -qq -o APT::Sandbox::User=root \
    mediawiki mediawiki-classes )
for deb in "$work"/*.deb; do
    dpkg-deb -x "$deb" "$work/root"
done
version="$(dpkg-deb -f "$work"/mediawiki_*.deb Version)"

src="$work/root/usr/share/mediawiki"
[ -f "$src/maintenance/install.php" ] || { log "ERROR: unexpected package layout"; exit 1; }

# Resolve the package's absolute symlinks (they point into /etc/mediawiki and
# /var/lib/mediawiki, which we never install).
rm -f "$src/LocalSettings.php"                  # -> /etc/mediawiki/...; we use MW_CONFIG_FILE
rm -f "$src/config" "$src/images" "$src/extensions"
mkdir -p "$src/config" "$src/images" "$src/extensions" "$src/cache"
for ext in "$src"/extensions-core/*/; do
    name="$(basename "$ext")"
    ln -s "../extensions-core/$name" "$src/extensions/$name"
done
# Anything still pointing outside the tree would break in an arbitrary folder.
bad="$(find "$src" -type l -lname '/*' -print || true)"
if [ -n "$bad" ]; then
    log "ERROR: absolute symlinks left in the MediaWiki tree:"; printf '%s\n' "$bad" >&2
    exit 1
fi
echo "mediawiki $version" > "$src/.bsm-unpacked"

rm -rf "$MW_HOME/core.old"
[ -e "$MW_HOME/core" ] && mv "$MW_HOME/core" "$MW_HOME/core.old"
mv "$src" "$MW_HOME/core"
rm -rf "$MW_HOME/core.old"
rm -f "$APT_LOG"
log "MediaWiki $version unpacked into $MW_HOME/core"
