"""`bridgeshape-mirror build [--state FILE] [--out DIR] [--deals N] [--seed S]`: render and publish the mirror."""

from __future__ import annotations

import argparse
from pathlib import Path

from typing import TYPE_CHECKING

from ..config import Config, load
from ..exit_codes import ExitCode
from ..logs import Progress
from .common import HelpWithDefaults, at_most, deals_per_scenario, run_locked, seed

if TYPE_CHECKING:
    from bridgeshape_mirror.site_builder.build import BuildReport


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value >= 0 or value == float("inf"):  # NaN fails the comparison
        raise argparse.ArgumentTypeError("must be 0 or more seconds")
    return value


def dd_budget_override(args: argparse.Namespace) -> float | None:
    """`--no-dd` is a budget of 0; otherwise `--dd-budget`, if given."""
    return 0.0 if args.no_dd else args.dd_budget


def add_build_arguments(parser: argparse.ArgumentParser, standalone: bool) -> None:
    if standalone:
        parser.add_argument("--config", metavar="FILE", help="a TOML configuration file (flags override it)")
        parser.add_argument("--state", metavar="FILE", help="the SQLite state store (default {state})")
        parser.add_argument("-q", "--quiet", action="count", default=0, help="warnings and errors only")
        parser.add_argument("-v", "--verbose", action="count", default=0, help="debug output")
        parser.add_argument(
            "--allow-removals", action="store_true", default=None,
            help="publish even when most of the published convention pages would go (refused with exit 7 otherwise)",
        )
    parser.add_argument(
        "--out", metavar="DIR|s3://BUCKET/PREFIX",
        help="where the mirror is published: a folder, or S3-compatible object storage (default {out})",
    )
    parser.add_argument(
        "--endpoint-url", metavar="URL", help="with an s3:// --out: the store's endpoint (MinIO, Ceph RGW, R2, ...)"
    )
    parser.add_argument(
        "--stage", metavar="DIR",
        help="with an s3:// --out: the local folder the mirror is built in first (default: beside the state store)",
    )
    parser.add_argument(
        "--nginx-origin", metavar="URL",
        help="with an s3:// --out: the URL nginx reads the bucket from; the snippet the build writes proxies to it",
    )
    parser.add_argument(
        "--deals", type=deals_per_scenario, metavar="N", help="sample deals per scenario, at most {deals_limit} (default {deals})"
    )
    parser.add_argument("--seed", type=seed, metavar="S", help="mixed into every deal seed (default {seed})")
    parser.add_argument(
        "--max-age", type=max_age, metavar="SECONDS",
        help="Cache-Control max-age in the nginx snippet's answers (default {max_age})",
    )
    parser.add_argument("--lang", metavar="LANG", help="the language of the site and the report (default: the wiki's)")
    parser.add_argument(
        "--level", metavar="BY", action="append",
        help="deal every scenario as a levelled set by the measure BY where it applies (as the deals command's --level; twice: the product)",
    )

    dd = parser.add_mutually_exclusive_group()
    dd.add_argument(
        "--dd-budget", type=_seconds, metavar="SECONDS",
        help="seconds of double-dummy analysis per run for deals without a table; the rest wait for later runs (default {dd_budget:g})",
    )
    dd.add_argument("--no-dd", action="store_true", help="no double-dummy analysis this run (tables already made are still published)")

def max_age(text: str) -> int:
    """A --max-age value: whole seconds, 0 to a year."""
    from ..config import upper_bound

    return at_most(text, *upper_bound("max_age"))


def build_with(config: Config) -> BuildReport:
    """The build of `config` (the caller holds the lock). Raises the library's errors."""
    from bridgeshape_mirror.site_builder.build import BuildSettings, build  # numpy, jinja2: only when building
    from bridgeshape_mirror.site_builder.object_store import BucketTarget, is_bucket_url

    bucket = BucketTarget.parse(config.out, config.endpoint_url, config.max_age) if is_bucket_url(config.out) else None
    with Progress() as progress:
        settings = BuildSettings(
            out=Path(config.local_out()), deals=config.deals, seed=config.seed,
            allow_removals=bool(config.allow_removals), max_age=config.max_age, lang=config.lang, bucket=bucket,
            dd_budget=float(config.dd_budget), nginx_origin=config.nginx_origin, level=config.level,
        )
        return build(config.state, settings, progress)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "build",
        help="render the state store into the mirror and publish it atomically",
        description="Render the mirror (API files, deals, report, site) and swap it into place in one rename.",
        formatter_class=HelpWithDefaults,
    )
    add_build_arguments(parser, standalone=True)
    parser.set_defaults(handler=run)


def build_config(args: argparse.Namespace) -> Config:
    return load(args.config, {**build_overrides(args), "state": args.state, "allow_removals": args.allow_removals})


def build_overrides(args: argparse.Namespace) -> dict[str, object]:
    """The build's flags, as configuration overrides (build and update share them)."""
    return {
        "out": args.out, "deals": args.deals, "seed": args.seed, "endpoint_url": args.endpoint_url, "stage": args.stage,
        "max_age": args.max_age, "lang": args.lang, "dd_budget": dd_budget_override(args), "nginx_origin": args.nginx_origin,
        "level": args.level,
    }


def run(args: argparse.Namespace) -> ExitCode:
    return run_locked(args, build_config, build_with, "build failed, the published mirror is unchanged")
