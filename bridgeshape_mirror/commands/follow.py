"""`bridgeshape-mirror follow`: update the mirror as the wiki changes, from its change feed.

A long run that waits (in `select`, no busy loop) for the datagrams of the wiki's
`$wgRCFeeds` and polls `list=recentchanges` every `--poll` seconds as the safety net. Each
publish is `update`'s (`update.sync_then_build`: sync, build, publish, with its guards and
whatever it does after a publish), under the state store's lock taken for that publish
alone: cron's `update` runs between two publishes, and a follower waits while it runs.
"""

from __future__ import annotations

import argparse
import logging
import math
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from typing import TYPE_CHECKING

from ..config import Config
from ..exit_codes import ExitCode, Terminated, signal_handled
from ..logs import setup_logging
from .build import _seconds, add_build_arguments, build_overrides
from .common import Failure, HelpWithDefaults, Report, described, exit_code_for, expected_errors, locked, summary_line
from .sync import add_sync_arguments, sync_config
from .update import sync_then_build

if TYPE_CHECKING:
    from bridgeshape_mirror.sync.change_feed import Change, FeedListener

log = logging.getLogger("bridgeshape_mirror")

#: Seconds between a first datagram and its publish: the datagram can come before the
#: wiki's transaction is visible, and the saves of one action (an edit and its log) together.
SETTLE = 0.25
#: Syncs more, after one that did not yet see an announced change, before the poll is left
#: to find it; and the seconds between them.
RETRIES = 4
RETRY_AFTER = 0.5

FAILURE = "follow: publish failed, the published mirror is unchanged; tried again at the next change or poll"


def _period(text: str) -> float:
    value = _seconds(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0 seconds")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "follow",
        help="keep running: publish each change of the wiki as its change feed announces it",
        description=(
            "Listen to the wiki's recent-changes feed ($wgRCFeeds, JSON over UDP) and poll its recent changes; "
            "publish every change as update does, taking turns with cron's update for the lock."
        ),
        formatter_class=HelpWithDefaults,
    )
    add_sync_arguments(parser)
    add_build_arguments(parser, standalone=False)
    parser.add_argument("--listen", metavar="udp://HOST:PORT", help="where the wiki's $wgRCFeeds sends (default: polling only)")
    parser.add_argument("--poll", type=_period, metavar="SECONDS", help="seconds between polls of recent changes (default {poll:g})")
    parser.add_argument(
        "--coalesce", type=_seconds, metavar="SECONDS",
        help="seconds at least from one publish's start to the next one's: a burst of saves is published together (default {coalesce:g})",
    )
    parser.set_defaults(handler=run)


def follow_config(args: argparse.Namespace) -> Config:
    config = sync_config(args, {**build_overrides(args), "listen": args.listen, "poll": args.poll, "coalesce": args.coalesce})
    if config.dump:
        from ..config import ConfigError

        raise ConfigError("follow reads a live wiki: give --api URL, not --dump")
    # Every sync of a follower compares the transclusions' revisions and redirects
    # (`prop=info`, a request per 500 pages): that is how a new redirect to a convention
    # page is seen at once, where cron's runs see it at the periodic check.
    config.info_check_hours = 0
    return config


def run(args: argparse.Namespace) -> ExitCode:
    from bridgeshape_mirror.sync.change_feed import FeedListener, ListenAddress, wiki_addresses

    setup_logging(args.verbose - args.quiet)
    listener = None
    try:
        config = follow_config(args)
        if config.listen:
            listener = FeedListener(ListenAddress.parse(config.listen), wiki_addresses(str(config.api)))
    except expected_errors() as exc:
        return summary_line("follow", Failure(exit_code_for(exc), f"follow not started: {described(exc)}"), 0.0)
    feed = f"the change feed on {listener.address} (from {', '.join(sorted(listener.senders))})" if listener else "no change feed"
    log.info("follow: %s, polling %s every %g s", feed, config.api, config.poll)
    # SIGINT stops a follower even when it was started with SIGINT ignored (a background job
    # of a shell without job control), as it stops `serve`: both are services, told to stop by
    # a signal, not by a terminal's ^C.
    try:
        with signal_handled(signal.SIGINT, signal.default_int_handler):
            return Follower(config, listener).run()
    finally:
        if listener is not None:
            listener.close()


@dataclass
class _Pending:
    """Changes announced and not yet published: since when, and the newest one's id."""

    since: float
    rcid: int


class Follower:
    def __init__(
        self,
        config: Config,
        listener: FeedListener | None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.config = config
        self.listener = listener
        self.clock = clock
        self._pending: _Pending | None = None
        self._last_start = -math.inf
        self._next_poll = clock()  # the first publish at once: what changed while stopped
        self._retries = 0
        self._busy = False

    def run(self) -> ExitCode:
        try:
            while True:
                self._step()
        except (KeyboardInterrupt, Terminated) as stop:
            if self._busy:
                raise  # in a publish: cli.main says what a stopped run leaves
            log.info("follow: stopped (%s)", "SIGINT" if isinstance(stop, KeyboardInterrupt) else "SIGTERM")
            return ExitCode.OK

    def _due(self) -> float:
        due = self._next_poll
        if self._pending is not None:
            soonest = self._pending.since + SETTLE
            if self._retries == 0:
                soonest = max(soonest, self._last_start + self.config.coalesce)
            due = min(due, soonest)
        return due

    def _step(self) -> None:
        now = self.clock()
        due = self._due()
        if now < due:
            self._wait(due - now)
            return
        polled = now >= self._next_poll
        if polled and self.listener is not None:
            self._refresh_senders()
        wanted = self._pending.rcid if self._pending else 0
        self._pending = None
        self._last_start = now
        outcome, seen = self._publish()
        self._next_poll = self.clock() + self.config.poll
        if wanted and not isinstance(outcome, Failure) and seen < wanted:
            if self._retries < RETRIES:
                self._retries += 1
                log.debug("follow: change %d not yet in recent changes (synced to %d); syncing again in %g s", wanted, seen, RETRY_AFTER)
                self._note(wanted, self.clock() + RETRY_AFTER - SETTLE)
                return
            log.info("follow: change %d not yet seen in recent changes; the next poll looks again", wanted)
        self._retries = 0

    def _wait(self, seconds: float) -> None:
        if self.listener is None:
            time.sleep(seconds)
            return
        if self.listener.wait(seconds):
            for change in self.listener.receive():
                self._heard(change)

    def _heard(self, change: Change) -> None:
        log.debug("follow: heard change %d (%s of %s)", change.rcid, change.kind, change.title)
        self._note(change.rcid, self.clock())

    def _note(self, rcid: int, since: float) -> None:
        if self._pending is None:
            self._pending = _Pending(since, rcid)
        else:
            self._pending.rcid = max(self._pending.rcid, rcid)

    def _refresh_senders(self) -> None:
        """The wiki's addresses again (its DNS may change); on failure the known ones stay."""
        from bridgeshape_mirror.sync.change_feed import wiki_addresses
        from bridgeshape_mirror.sync.errors import FeedError

        assert self.listener is not None
        try:
            self.listener.senders = wiki_addresses(str(self.config.api))
        except FeedError as exc:
            log.warning("follow: %s; the feed keeps taking %s", exc, ", ".join(sorted(self.listener.senders)))

    def _publish(self) -> tuple[Report | Failure | ExitCode, int]:
        """One publish as `update` makes it, its log line (a debug line when it published
        nothing: a poll of a quiet wiki), and the newest change id synced."""
        started = self.clock()
        seen = [0]

        def work(config: Config) -> Report | Failure | ExitCode:
            self._busy = True  # left so by a signal (not an Exception): `run` tells the two stops apart
            try:
                outcome = sync_then_build(config, sync_line=logging.DEBUG)
                seen[0] = _synced_through(config.state)
            except Exception:
                self._busy = False
                raise
            self._busy = False
            return outcome

        outcome = locked(self.config, work, FAILURE, follower=True)
        if not isinstance(outcome, Failure):  # --full and --allow-removals are for one run: the first publish's
            self.config = replace(self.config, full=False, allow_removals=False)
        summary_line("follow", outcome, self.clock() - started, quiet_when_unchanged=True)
        return outcome, seen[0]


def _synced_through(state: str) -> int:
    """The newest recent-change id the store's cursor has read."""
    from bridgeshape_mirror.store.state import StateStore

    with StateStore(state) as store:
        cursor = store.get_json("cursor") or {}
    return int(cursor.get("rcid", 0))
