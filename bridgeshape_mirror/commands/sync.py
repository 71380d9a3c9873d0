"""`bridgeshape-mirror sync (--api URL | --dump FILE) [--state FILE] ...`: update the state store."""

from __future__ import annotations

import argparse
from datetime import timedelta
from pathlib import Path

from typing import TYPE_CHECKING

from ..config import Config, ConfigError, load
from ..exit_codes import ExitCode
from ..logs import Progress
from .common import HelpWithDefaults, run_locked

if TYPE_CHECKING:
    from bridgeshape_mirror.sync.report import SyncReport
    from bridgeshape_mirror.sync.settings import ClientSettings


def add_sync_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--api", metavar="URL", help="the wiki's api.php URL")
    source.add_argument("--dump", metavar="FILE", help="a MediaWiki XML export instead of a live wiki")
    parser.add_argument("--config", metavar="FILE", help="a TOML configuration file (flags override it)")
    parser.add_argument("--state", metavar="FILE", help="the SQLite state store (default {state})")
    parser.add_argument("--template", metavar="NAME", help="the convention template (default {template})")
    parser.add_argument("--parameter", metavar="NAME", help="its parameter (default {parameter})")
    parser.add_argument("--category", metavar="NAME", help="only pages in this category")
    parser.add_argument("--contact", metavar="TEXT", help="contact for the User-Agent (an email or URL)")
    parser.add_argument("--full", action="store_true", default=None, help="a full sync instead of an incremental one")
    parser.add_argument(
        "--allow-removals", action="store_true", default=None,
        help="accept a run that removes many convention pages (otherwise refused with status 7)",
    )
    parser.add_argument("--timeout", type=float, metavar="SECONDS", help="per request (default {timeout:g})")
    parser.add_argument("--deadline", type=float, metavar="SECONDS", help="for the whole sync (default {deadline:g})")
    parser.add_argument("--max-retries", type=int, metavar="N", help="retries per request (default {max_retries})")
    parser.add_argument("-q", "--quiet", action="count", default=0, help="warnings and errors only")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="debug output")


def sync_config(args: argparse.Namespace, extra: dict[str, object] | None = None) -> Config:
    overrides = {
        "api": args.api,
        "dump": args.dump,
        "state": args.state,
        "template": args.template,
        "parameter": args.parameter,
        "category": args.category,
        "contact": args.contact,
        "full": args.full,
        "allow_removals": args.allow_removals,
        "timeout": args.timeout,
        "deadline": args.deadline,
        "max_retries": args.max_retries,
        **(extra or {}),
    }
    config = load(args.config, overrides)
    if not config.api and not config.dump:
        # Never a default: a sync of some other wiki would publish the wrong mirror with status 0.
        raise ConfigError(
            "no source to sync from: give --api URL (the wiki's api.php), --dump FILE (an XML export), "
            "or api = ... / dump = ... in [wiki] of the configuration file (--config FILE)"
        )
    return config


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sync",
        help="bring the state store up to date with the wiki (or an XML export)",
        description="Pull convention pages into the state store: incremental after the first run.",
        formatter_class=HelpWithDefaults,
    )
    add_sync_arguments(parser)
    parser.set_defaults(handler=run)


def sync_with(config: Config) -> SyncReport:
    """The sync of `config` (the caller holds the lock). Raises the library's errors."""
    # Imported here: mwclient and requests are slow to import, and other commands never need them.
    from bridgeshape_mirror.sync.runner import Source, run_sync
    from bridgeshape_mirror.sync.settings import SyncSettings

    settings = SyncSettings(
        template=config.template,
        parameter=config.parameter,
        category=config.category,
        full=bool(config.full),
        allow_removals=bool(config.allow_removals),
        info_check_every=timedelta(hours=config.info_check_hours),
    )
    source = Source(dump=Path(config.dump)) if config.dump else Source(api=client_settings(config))
    with Progress() as progress:
        counter = progress.stage("sync: pages read", "page") if progress else None
        return run_sync(source, config.state, settings, progress=counter)


def client_settings(config: Config) -> ClientSettings:
    """How the API client of `config`'s wiki talks to it (the sync's, and the report page's)."""
    from bridgeshape_mirror.sync.settings import ClientSettings

    return ClientSettings(
        api_url=str(config.api),
        contact=config.contact,
        timeout=config.timeout,
        max_retries=config.max_retries,
        deadline=config.deadline,
        username=config.username,
        password=config.password,
    )


def run(args: argparse.Namespace) -> ExitCode:
    return run_locked(args, sync_config, sync_with, "sync failed, state kept as it was")
