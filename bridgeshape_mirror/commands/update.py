"""`bridgeshape-mirror update`: sync, then build. The one command cron runs.

Broken DSL on the wiki is reported (in the report and the log), not a failure of the run:
the exit status says whether the run itself worked. When the sync fails, the mirror is not
rebuilt and stays as it was.
"""

from __future__ import annotations

import argparse
import logging

from store.errors import StoreError
from store.lock import RunLock
from sync.errors import SyncError

from ..exit_codes import ExitCode
from ..logs import setup_logging
from .build import add_build_arguments, build_with
from .common import EXPECTED_ERRORS, exit_code_for
from .sync import add_sync_arguments, config_from_args, sync_with

log = logging.getLogger("bridgeshape_mirror")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "update",
        help="sync, then build and publish: what cron runs",
        description="Sync the state store with the wiki (or an export), then build and publish the mirror.",
    )
    add_sync_arguments(parser)
    add_build_arguments(parser, standalone=False)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> ExitCode:
    setup_logging(args.verbose - args.quiet)
    try:
        config = config_from_args(args, {"out": args.out, "deals": args.deals, "seed": args.seed})
        with RunLock(config.state):
            try:
                sync_report = sync_with(config)
            except (SyncError, StoreError) as exc:
                log.error("sync failed; state and mirror kept as they were: %s", exc)
                return exit_code_for(exc)
            log.info(sync_report.summary())
            build_report = build_with(config)
    except EXPECTED_ERRORS as exc:  # the lock, the configuration, the build
        log.error("update failed, the published mirror is unchanged: %s", exc)
        return exit_code_for(exc)
    log.info(build_report.summary())
    return ExitCode.OK
