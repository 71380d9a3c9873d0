"""`bridgeshape-mirror serve [--out DIR] [--host 127.0.0.1] [--port N]`: preview the mirror.

Serves the mirror's files and the extension's `api.php` routes (get, list, listall from the
files, validate live) until SIGTERM or SIGINT. The port is $PORT (default 8080) unless
--port is given. Requests are logged at debug level only (-v).
"""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path

from bridgeshape_mirror.serving import DEFAULT_HOST, DEFAULT_PORT, no_mirror_reason

from ..config import ConfigError, load
from ..exit_codes import ExitCode
from ..logs import setup_logging
from .build import max_age
from .common import HelpWithDefaults

log = logging.getLogger("bridgeshape_mirror")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        formatter_class=HelpWithDefaults,  # the default max-age is read only for --help: serving's modules cost every command
        help="serve the mirror and its api.php (validate answered live) for preview",
        description=(
            "Serve the mirror folder over HTTP with the extension's api.php routes "
            "(get, list, listall from the files; validate live) and GET /health. "
            f"Listens on $PORT (default {DEFAULT_PORT}); stops cleanly on SIGTERM or SIGINT."
        ),
    )
    parser.add_argument("--out", metavar="DIR", help="the mirror folder (default: the configuration's, else output)")
    parser.add_argument("--config", metavar="FILE", help="a TOML configuration file ([build] out)")
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST})")
    parser.add_argument("--port", type=int, metavar="N", help=f"port (default $PORT, else {DEFAULT_PORT})")
    parser.add_argument(
        "--max-age", type=max_age, metavar="SECONDS",
        help="Cache-Control max-age of every answer (default: the configuration's, else {max_age})",
    )
    parser.add_argument("-q", "--quiet", action="count", default=0, help="warnings and errors only")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="debug output, one line per request")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> ExitCode:
    from bridgeshape_mirror.serving import http_server  # the DSL parser comes with it: only when serving
    from bridgeshape_mirror.serving.api_headers import ServeSettings

    setup_logging(args.verbose - args.quiet)
    try:
        config = load(args.config, {"out": args.out, "max_age": args.max_age})
    except ConfigError as exc:
        log.error("%s", exc)
        return ExitCode.USAGE
    try:
        port = args.port if args.port is not None else http_server.port_from_environment()
    except ValueError:
        log.error("PORT=%r is not a port number", os.environ.get("PORT"))
        return ExitCode.USAGE
    out = Path(config.local_out())
    reason = no_mirror_reason(str(out))
    if reason is not None:
        log.error("nothing to serve: %s", reason)
        return ExitCode.USAGE
    try:
        server = http_server.make_server(out, args.host, port, ServeSettings(max_age=config.max_age))
    except OSError as exc:
        log.error("cannot listen on %s:%s: %s", args.host, port, exc)
        return ExitCode.USAGE
    log.info("serving %s on %s (api: %s/api.php)", out, server.url, server.url)
    http_server.serve_until_signal(server)
    log.info("stopped")
    return ExitCode.OK
