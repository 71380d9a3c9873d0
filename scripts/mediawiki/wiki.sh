#!/usr/bin/env bash
# Create, start, stop a throw-away MediaWiki (Debian's package, SQLite, PHP's
# built-in web server on 127.0.0.1) for tests and for poking at by hand.
#
#   wiki.sh start  STATE_DIR [PORT] [--fresh] [--rc-feed udp://HOST:PORT]
#                                               create the wiki if STATE_DIR has none
#                                               (--fresh: wipe and recreate), start
#                                               `php -S`, wait for api.php, print base URL;
#                                               --rc-feed: send recent changes there
#                                               ($wgRCFeeds, JSON over UDP)
#   wiki.sh stop   STATE_DIR                    stop the server of STATE_DIR
#   wiki.sh status STATE_DIR                    print base URL and exit 0 if it answers
#   wiki.sh create STATE_DIR [PORT] [--fresh]   only create (install.php + bot password)
#   wiki.sh serve  STATE_DIR PORT               run `php -S` in the foreground (exec)
#   wiki.sh maint  STATE_DIR SCRIPT [ARGS...]   run a maintenance script, e.g.
#                                               `wiki.sh maint st runJobs.php`
#
# PORT 0 or absent: a free port is picked.
# STATE_DIR holds everything of one wiki: LocalSettings.php, HarnessSettings.php
# (rewritten on each start: port, test tuning), data/ (SQLite), php-server.log,
# php-server.pid and wiki.env (URLs + credentials, KEY=VALUE, for scripts/tests).
#
# Env: BSM_MEDIAWIKI_HOME (cache of install-deps.sh, default
#      /var/cache/bridgeshape-mirror/mediawiki), BSM_WIKI_START_TIMEOUT (s, default 60),
#      BSM_PHP_SERVER_WORKERS (PHP_CLI_SERVER_WORKERS for php -S, default 1),
#      BSM_WIKI_PARENT_PID (serve: stop php -S when this pid is gone),
#      BSM_WIKI_RC_FEED (udp://HOST:PORT, as --rc-feed; the flag wins).
# Credentials are fixed test values (this wiki only listens on 127.0.0.1).
set -euo pipefail

MW_HOME="${BSM_MEDIAWIKI_HOME:-/var/cache/bridgeshape-mirror/mediawiki}"
IP="$MW_HOME/core"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

ADMIN_USER="Admin"
ADMIN_PASS="bsm-admin-test-pass-7391"
BOT_APPID="bsm"
# Bot passwords must match ^[0-9a-w]{32,}$ or login fails.
BOT_PASS="bsmtestbotpassword00000000000000"
BOT_GRANTS="basic,highvolume,editpage,editprotected,createeditmovepage,delete,protect,patrol,rollback,import,editinterface,viewdeleted,viewrestrictedlogs"
SITENAME="BridgeTest"
MARKER=".bsm-wiki"

die() { printf '[mediawiki/wiki] ERROR: %s\n' "$*" >&2; exit 1; }
log() { printf '[mediawiki/wiki] %s\n' "$*" >&2; }

need_core() {
    [ -f "$IP/maintenance/install.php" ] ||
        die "no MediaWiki in $IP; run scripts/mediawiki/install-deps.sh first"
    command -v php >/dev/null 2>&1 || die "php not found; run scripts/mediawiki/install-deps.sh"
}

abspath() { mkdir -p "$1" && (cd "$1" && pwd); }

free_port() {
    # shellcheck disable=SC2016  # PHP code, not shell
    php -r '$s = stream_socket_server("tcp://127.0.0.1:0", $e, $m) or exit(1);
            $n = stream_socket_get_name($s, false); echo substr($n, strrpos($n, ":") + 1);'
}

saved_port() {
    local st="$1"
    if [ -f "$st/wiki.env" ]; then
        sed -n 's/^PORT=//p' "$st/wiki.env"
    fi
}

# The settings we own; rewritten on every start so the port can change.
write_harness_settings() {
    local st="$1" port="$2" feed="${BSM_WIKI_RC_FEED:-}" feed_php=""
    if [ -n "$feed" ]; then
        [[ "$feed" =~ ^udp://(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):[0-9]+$ ]] ||
            die "rc feed $feed: give udp://HOST:PORT"
        # MediaWiki's own engine and formatter: every recent change as one JSON datagram.
        feed_php="\$wgRCFeeds['bridgeshape-mirror'] = [
    'class' => 'UDPRCFeedEngine',
    'formatter' => 'JSONRCFeedFormatter',
    'uri' => '$feed',
];"
    fi
    cat > "$st/HarnessSettings.php" <<PHP
<?php
# Written by scripts/mediawiki/wiki.sh on each start: do not edit.
\$wgServer = "http://127.0.0.1:$port";
\$wgCanonicalServer = \$wgServer;
\$wgScriptPath = "";
\$wgArticlePath = "/index.php?title=\$1";
\$wgUsePathInfo = false;
\$wgSQLiteDataDir = "$st/data";
\$wgCacheDirectory = "$st/cache";
\$wgUploadDirectory = "$st/images";
\$wgEnableUploads = false;
\$wgUseInstantCommons = false;
\$wgEnableEmail = false;
\$wgEnableUserEmail = false;
\$wgEmailAuthentication = false;
\$wgPingback = false;
# api.php must not run jobs: tests run maintenance/runJobs.php explicitly.
\$wgJobRunRate = 0;
# No rate limits at all (admin already has noratelimit; bot passwords need the
# highvolume grant for it, so be explicit).
\$wgRateLimits = [];
\$wgGroupPermissions['sysop']['noratelimit'] = true;
\$wgGroupPermissions['bot']['noratelimit'] = true;
\$wgEnableBotPasswords = true;
\$wgPasswordAttemptThrottle = [];
\$wgAccountCreationThrottle = [];
\$wgMainCacheType = CACHE_NONE;
\$wgSessionCacheType = CACHE_DB;
\$wgShowExceptionDetails = true;
\$wgShowDBErrorBacktrace = true;
\$wgDebugLogFile = "";
\$wgCdnMaxAge = 0;
\$wgReadOnly = null;
# Let edits by the test users show up in recentchanges immediately and unpatrolled state
# not matter.
\$wgUseRCPatrol = false;
\$wgUseNPPatrol = false;
$feed_php
if ( is_file( __DIR__ . '/ExtraSettings.php' ) ) {
    require __DIR__ . '/ExtraSettings.php';
}
PHP
}

write_env() {
    local st="$1" port="$2" base="http://127.0.0.1:$2"
    cat > "$st/wiki.env.tmp" <<ENV
BASE_URL=$base
API_URL=$base/api.php
INDEX_URL=$base/index.php
PORT=$port
STATE_DIR=$st
MW_HOME=$MW_HOME
MW_CONFIG_FILE=$st/LocalSettings.php
ADMIN_USER=$ADMIN_USER
ADMIN_PASS=$ADMIN_PASS
BOT_APPID=$BOT_APPID
BOT_USER=$ADMIN_USER@$BOT_APPID
BOT_PASS=$BOT_PASS
ENV
    mv "$st/wiki.env.tmp" "$st/wiki.env"
}

maint() {
    local st="$1" script="$2"; shift 2
    case "$script" in */*) ;; *) script="maintenance/$script" ;; esac
    (cd "$IP" && MW_CONFIG_FILE="$st/LocalSettings.php" MW_INSTALL_PATH="$IP" \
        php -d memory_limit=512M "$script" "$@")
}

# A pid that exists and is not a zombie (a stopped server started by `start` is
# reparented and stays a zombie until its new parent reaps it).
alive() {
    local state
    state="$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" || return 1
    [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

is_running() {
    local st="$1" pid
    [ -f "$st/php-server.pid" ] || return 1
    pid="$(cat "$st/php-server.pid" 2>/dev/null || true)"
    [ -n "$pid" ] && alive "$pid" || return 1
    # Guard against a recycled pid.
    tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q -- ' -S 127.0.0.1:' || return 1
}

answers() {
    local url="$1"
    # shellcheck disable=SC2016  # PHP code, not shell
    php -r '$c = stream_context_create(["http" => ["timeout" => 5, "ignore_errors" => true]]);
            $r = @file_get_contents($argv[1], false, $c);
            exit(($r !== false && strpos($r, "\"sitename\"") !== false) ? 0 : 1);' \
        "$url/api.php?action=query&meta=siteinfo&format=json" 2>/dev/null
}

cmd_create() {
    local st="$1" port="${2:-0}" fresh="${3:-0}"
    need_core
    st="$(abspath "$st")"
    if [ -f "$st/LocalSettings.php" ] && [ "$fresh" != 1 ]; then
        log "reusing the wiki in $st"
        return 0
    fi
    if [ -n "$(ls -A "$st")" ]; then
        [ -f "$st/$MARKER" ] || die "$st is not empty and is not a wiki made by this script; refusing to wipe it"
        is_running "$st" && cmd_stop "$st"
        find "$st" -mindepth 1 -delete
    fi
    [ "$port" = 0 ] && port=8080   # only a placeholder: HarnessSettings.php sets the real one
    touch "$st/$MARKER"
    mkdir -p "$st/data" "$st/cache" "$st/images"
    log "install.php into $st"
    (cd "$IP" && php -d memory_limit=512M maintenance/install.php \
        --dbtype sqlite --dbpath "$st/data" --dbname wiki \
        --server "http://127.0.0.1:$port" --scriptpath "" --lang en \
        --pass "$ADMIN_PASS" --confpath "$st" \
        --extensions ParserFunctions --skins Vector \
        "$SITENAME" "$ADMIN_USER") > "$st/install.log" 2>&1 ||
        { tail -n 30 "$st/install.log" >&2; die "install.php failed (log: $st/install.log)"; }
    printf '\n# bridgeshape-mirror test harness\nrequire __DIR__ . "/HarnessSettings.php";\n' \
        >> "$st/LocalSettings.php"
    write_harness_settings "$st" "$port"
    maint "$st" createBotPassword.php --appid "$BOT_APPID" --grants "$BOT_GRANTS" \
        "$ADMIN_USER" "$BOT_PASS" >> "$st/install.log" 2>&1 ||
        { tail -n 30 "$st/install.log" >&2; die "createBotPassword.php failed"; }
    write_env "$st" "$port"
}

cmd_serve() {
    local st="$1" port="$2"
    need_core
    st="$(abspath "$st")"
    [ -f "$st/LocalSettings.php" ] || die "no wiki in $st (run: wiki.sh create $st)"
    write_harness_settings "$st" "$port"
    write_env "$st" "$port"
    echo $$ > "$st/php-server.pid"
    cd "$IP"
    export MW_CONFIG_FILE="$st/LocalSettings.php" MW_INSTALL_PATH="$IP"
    export PHP_CLI_SERVER_WORKERS="${BSM_PHP_SERVER_WORKERS:-1}"
    [ "$PHP_CLI_SERVER_WORKERS" -gt 1 ] || unset PHP_CLI_SERVER_WORKERS
    # BSM_WIKI_PARENT_PID (set by tests/support/wiki_server.py): stop the server when that
    # process is gone, even if it died without cleaning up (SIGKILL, SIGTERM).
    local parent="${BSM_WIKI_PARENT_PID:-}"
    if [ -n "$parent" ]; then
        # $$ stays this shell's pid, which `exec` below turns into php's.
        ( while alive "$parent"; do sleep 1; done; kill "$$" 2>/dev/null ) &
    fi
    exec php -d memory_limit=512M -d display_errors=0 -d log_errors=1 \
        -d opcache.enable=1 \
        -S "127.0.0.1:$port" -t "$IP"
}

cmd_start() {
    local st="$1" port="${2:-0}" fresh="${3:-0}"
    need_core
    st="$(abspath "$st")"
    if is_running "$st"; then
        if [ "$fresh" = 1 ]; then
            cmd_stop "$st"
        else
            port="$(saved_port "$st")"
            answers "http://127.0.0.1:$port" || die "a server for $st runs (pid $(cat "$st/php-server.pid")) but does not answer"
            log "already running"
            echo "http://127.0.0.1:$port"
            return 0
        fi
    fi
    cmd_create "$st" "$port" "$fresh"
    [ "$port" = 0 ] && port="$(free_port)"
    local base="http://127.0.0.1:$port"
    : > "$st/php-server.log"
    setsid bash "$HERE/wiki.sh" serve "$st" "$port" >> "$st/php-server.log" 2>&1 < /dev/null &
    local pid=$! timeout="${BSM_WIKI_START_TIMEOUT:-60}"
    local deadline=$((SECONDS + timeout))
    until answers "$base"; do
        if ! alive "$pid"; then
            tail -n 30 "$st/php-server.log" >&2
            die "php -S exited early (log: $st/php-server.log)"
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
            tail -n 30 "$st/php-server.log" >&2
            kill "$pid" 2>/dev/null || true
            die "wiki did not answer at $base/api.php within ${timeout}s (log: $st/php-server.log)"
        fi
        sleep 0.2
    done
    log "running: pid $pid, state $st"
    echo "$base"
}

cmd_stop() {
    local st="$1" pid
    st="$(abspath "$st")"
    if ! is_running "$st"; then
        rm -f "$st/php-server.pid"
        log "not running"
        return 0
    fi
    pid="$(cat "$st/php-server.pid")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
        alive "$pid" || break
        sleep 0.1
    done
    if alive "$pid"; then kill -9 "$pid" 2>/dev/null || true; fi
    rm -f "$st/php-server.pid"
    log "stopped pid $pid"
}

cmd_status() {
    local st="$1" port
    st="$(abspath "$st")"
    if is_running "$st"; then
        port="$(saved_port "$st")"
        if answers "http://127.0.0.1:$port"; then
            echo "http://127.0.0.1:$port"
            return 0
        fi
        log "pid $(cat "$st/php-server.pid") runs but api.php does not answer"
        return 1
    fi
    log "not running"
    return 3
}

usage() { sed -n '2,28p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[ $# -ge 2 ] || usage
cmd="$1"; shift
fresh=0
args=()
feed_next=0
for a in "$@"; do
    if [ "$feed_next" = 1 ]; then export BSM_WIKI_RC_FEED="$a"; feed_next=0
    elif [ "$a" = "--rc-feed" ] && [ "$cmd" != maint ]; then feed_next=1
    elif [ "$a" = "--fresh" ] && [ "$cmd" != maint ]; then fresh=1
    else args+=("$a"); fi
done
[ "$feed_next" = 0 ] || die "--rc-feed needs udp://HOST:PORT"
set -- "${args[@]}"
case "$cmd" in
    start)  cmd_start "$1" "${2:-0}" "$fresh" ;;
    create) cmd_create "$1" "${2:-0}" "$fresh"; abspath "$1" ;;
    serve)  [ $# -ge 2 ] || usage; cmd_serve "$1" "$2" ;;
    stop)   cmd_stop "$1" ;;
    status) cmd_status "$1" ;;
    maint)  [ $# -ge 2 ] || usage; st="$(abspath "$1")"; shift; maint "$st" "$@" ;;
    *) usage ;;
esac
