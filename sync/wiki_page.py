"""Writing the report onto a page of the wiki: between two markers, keeping the page's own
text around them, as a bot edit (`bot`, `assert=bot`, `maxlag` through the client), only when
the text changed. An edit conflict (someone saved the page meanwhile) reads the page again and
tries again; `ratelimited` and `maxlag` are the client's to wait for (`client.call`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .client import WikiClient
from .errors import SyncError, WikiApiError, WikiGarbage

START = "<!-- bridgeshape-mirror report start -->"
END = "<!-- bridgeshape-mirror report end -->"

#: Edit conflicts met in a row before giving up (a page edited that often is edited by hand).
CONFLICTS = 3


class MarkersBroken(SyncError):
    """The page holds one marker without the other, or the end before the start: which text
    is the report's cannot be told, so nothing is written."""


@dataclass(frozen=True)
class PageWrite:
    """What writing the report did: `revid` is the page's revision after it (None when the
    page did not exist and nothing was written)."""

    title: str
    changed: bool
    revid: int | None


@dataclass(frozen=True)
class _Current:
    text: str
    revid: int | None
    #: The revision's time and the wiki's time of the read: the edit's conflict check.
    base: str | None
    start: str


def spliced(current: str, report: str) -> str:
    """`current` with `report` between the markers: in place of what they held, or after the
    page's own text when it has none."""
    block = f"{START}\n{report}\n{END}"
    start, end = current.find(START), current.find(END)
    if start < 0 and end < 0:
        own = current.rstrip()
        return f"{own}\n\n{block}" if own else block
    if start < 0 or end < start or current.count(START) > 1 or current.count(END) > 1:
        raise MarkersBroken(f"the page's report markers are not one {START} followed by one {END}: fix the page by hand")
    return current[:start] + block + current[end + len(END):]


def write_report(client: WikiClient, title: str, report: str, summary: str) -> PageWrite:
    """Put `report` on page `title` (created if missing). The client is logged in."""
    for _ in range(CONFLICTS):
        current = _read(client, title)
        text = spliced(current.text, report)
        # The wiki trims trailing white space on save.
        if text.rstrip() == current.text.rstrip():
            return PageWrite(title, False, current.revid)
        try:
            return _edit(client, title, text, summary, current)
        except WikiApiError as exc:
            if exc.code not in ("editconflict", "articleexists"):
                raise
    raise WikiApiError("editconflict", f"{title!r} was edited by someone else {CONFLICTS} times while the report was written")


def _read(client: WikiClient, title: str) -> _Current:
    data = client.call(
        "query", prop="revisions", titles=title, rvprop="content|ids|timestamp", rvslots="main", curtimestamp=1
    )
    pages = (data.get("query") or {}).get("pages") or []
    now = data.get("curtimestamp")
    if len(pages) != 1 or not isinstance(pages[0], dict) or not isinstance(now, str):
        raise WikiGarbage(f"the wiki answered the read of {title!r} without the page or its time")
    page = pages[0]
    if page.get("invalid"):
        raise WikiApiError("invalidtitle", f"{title!r} is not a valid title: {page.get('invalidreason', '')}")
    if page.get("missing"):
        return _Current("", None, None, now)
    try:
        revision = page["revisions"][0]
        return _Current(str(revision["slots"]["main"]["content"]), int(revision["revid"]), str(revision["timestamp"]), now)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise WikiGarbage(f"the wiki answered the read of {title!r} with a revision that has no text: {exc!r}") from exc


def _edit(client: WikiClient, title: str, text: str, summary: str, current: _Current) -> PageWrite:
    token = ((client.call("query", meta="tokens", type="csrf").get("query") or {}).get("tokens") or {}).get("csrftoken")
    if not token:
        raise WikiGarbage("the wiki sent no edit token")
    params: dict[str, Any] = {
        "title": title, "text": text, "summary": summary, "bot": 1, "assert": "bot", "token": token,
        "starttimestamp": current.start,
    }
    if current.base is None:
        params["createonly"] = 1  # created meanwhile by someone else: a conflict, not an overwrite
    else:
        params["basetimestamp"] = current.base
        params["nocreate"] = 1  # deleted meanwhile: not brought back by a bot
    answer = client.call("edit", http_method="POST", **params).get("edit") or {}
    if answer.get("result") != "Success":
        raise WikiApiError("edit-failed", f"the edit of {title!r} was not saved: {answer!r:.300}")
    if answer.get("nochange"):
        return PageWrite(title, False, current.revid)
    try:
        return PageWrite(title, True, int(answer["newrevid"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise WikiGarbage(f"the wiki saved {title!r} but named no new revision") from exc
