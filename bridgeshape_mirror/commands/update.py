"""`bridgeshape-mirror update`: sync, then build. The one command cron runs.

Broken DSL on the wiki is reported (in the report and the log), not a failure of the run:
the exit status says whether the run itself worked. When the sync fails, the mirror is not
rebuilt and stays as it was. After a publish, the report is written onto the wiki page the
configuration names (`after_publish`).
"""

from __future__ import annotations

import argparse
import logging

from bridgeshape_mirror.store.errors import StoreError
from bridgeshape_mirror.sync.errors import SyncError

from ..config import Config
from ..exit_codes import ExitCode
from .after_publish import Published, after_publish
from .build import add_build_arguments, build_overrides, build_with
from .common import Failure, HelpWithDefaults, described, exit_code_for, run_locked
from .sync import add_sync_arguments, sync_config, sync_with

log = logging.getLogger("bridgeshape_mirror")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "update",
        help="sync, then build and publish: what cron runs",
        description="Sync the state store with the wiki (or an export), then build and publish the mirror.",
        formatter_class=HelpWithDefaults,
    )
    add_sync_arguments(parser)
    add_build_arguments(parser, standalone=False)
    parser.add_argument(
        "--report-page", metavar="TITLE",
        help="after the publish, write the validation report onto this wiki page (a bot edit; needs a bot password login)",
    )
    parser.set_defaults(handler=run)


def update_config(args: argparse.Namespace) -> Config:
    return sync_config(args, {**build_overrides(args), "report_page": args.report_page})


def sync_then_build(config: Config, sync_line: int = logging.INFO) -> Published | Failure:
    """One update, under the lock the caller holds: cron's run, and each publish of `follow`
    (so whatever an update does after its publish, a follower's publish does too). A failed
    sync ends the run before the build, with its own message: the mirror stays as it was.
    Errors of the lock, the configuration and the build reach the caller (`common.locked`).
    `sync_line`: the level of the sync's summary line (a follower's publishes say one line)."""
    try:
        sync_report = sync_with(config)
    except (SyncError, StoreError) as exc:
        return Failure(exit_code_for(exc), f"sync failed; state and mirror kept as they were: {described(exc)}")
    log.log(sync_line, sync_report.summary())
    return after_publish(config, build_with(config))


def run(args: argparse.Namespace) -> ExitCode:
    return run_locked(args, update_config, sync_then_build, "update failed, the published mirror is unchanged")
