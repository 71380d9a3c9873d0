"""What follows a successful publish of the mirror, for every run that publishes (`update`, and
a run that follows the wiki): the validation report written onto the wiki page the
configuration names (`report_page`). Its failure (no rights, a protected page, the wiki down)
is a warning of the run, never its failure: the mirror is published and stays so."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..config import Config
from .common import described

if TYPE_CHECKING:
    from bridgeshape_mirror.site_builder.build import BuildReport
    from bridgeshape_mirror.site_builder.wiki_report import WikiReport

log = logging.getLogger("bridgeshape_mirror")


@dataclass(frozen=True)
class AfterPublish:
    """What the steps after the publish did, for the run's summary line ("" when nothing),
    and why one failed, for its warning ("" when none did)."""

    done: str = ""
    problem: str = ""


@dataclass(frozen=True)
class Published:
    """A publish and what followed it: the run's outcome (`common.Report`)."""

    build: BuildReport
    after: AfterPublish

    @property
    def changed(self) -> bool:
        """Did the publish change the mirror (a follower's quiet poll did not)?"""
        return self.build.changed

    def summary(self) -> str:
        return self.build.summary() + (f"; {self.after.done}" if self.after.done else "")

    def warning(self) -> str:
        return "; ".join(part for part in (self.build.warning(), self.after.problem) if part)


def after_publish(config: Config, build: BuildReport) -> Published:
    """Call once the mirror is published (the caller holds the run lock)."""
    after = AfterPublish()
    if config.report_page and build.wiki_report is not None:
        after = write_report_page(config, config.report_page, build.wiki_report)
    return Published(build, after)


def write_report_page(config: Config, title: str, report: WikiReport) -> AfterPublish:
    """Write `report` onto the wiki page `title`, logged in as `config` says; a failure is
    said, not raised."""
    from bridgeshape_mirror.sync.client import WikiClient
    from bridgeshape_mirror.sync.errors import SyncError
    from bridgeshape_mirror.sync.runner import api_endpoint
    from bridgeshape_mirror.sync.wiki_page import write_report

    from .sync import client_settings

    unwritten = f"report page {title!r} not written"
    if not config.api:
        return AfterPublish(problem=f"{unwritten}: it is written through the wiki's API (--api), and this run read an export")
    if not config.username:
        return AfterPublish(
            problem=f"{unwritten}: a bot edit needs a login (username and password_file in [wiki], a bot password; see docs/OPERATING.md)"
        )
    try:
        client = WikiClient(api_endpoint(client_settings(config)))
        client.login()
        written = write_report(client, title, report.text, report.summary)
    except SyncError as exc:
        return AfterPublish(problem=f"{unwritten} ({described(exc)}); the mirror is published")
    state = f"written (revision {written.revid})" if written.changed else "unchanged"
    return AfterPublish(done=f"report page {title!r} {state}")
