"""MediaWiki's recent-changes feed (`$wgRCFeeds`: `JSONRCFeedFormatter` over `UDPRCFeedEngine`).

A datagram is a hint that something changed, never the content: what is published is
read from the API by the incremental sync. So a datagram only has to be well formed, small,
and sent from one of the wiki's own addresses; anything else is logged and dropped. Reading
drains the socket without keeping datagrams: memory stays the same whatever comes in.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import math
import select
import socket
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .errors import FeedError
from .syncer import LOG_TYPES_THAT_MOVE_PAGES

log = logging.getLogger(__name__)

#: The largest datagram taken: a change's JSON is well under 4 KiB (a summary is at most
#: 1,000 characters); MediaWiki itself cuts at 65,507 bytes, the most UDP carries.
MAX_DATAGRAM = 16 * 1024
#: The change types of the JSON formatter (`RecentChange::parseFromRCType`).
CHANGE_TYPES = frozenset({"edit", "new", "log", "categorize", "external"})
#: Datagrams read at most per wake-up, so a flood cannot hold the loop.
DRAIN_AT_MOST = 256
#: Seconds between two warnings of one kind (a foreign sender, a malformed datagram): a
#: flood is one line a minute with its count, not a line per datagram.
WARN_EVERY = 60.0


class BadDatagram(ValueError):
    """A datagram that is not one change of the JSON formatter (the reason is the message)."""


@dataclass(frozen=True)
class Change:
    """One change the wiki announced: what the follower needs to tell when it is synced."""

    rcid: int
    kind: str
    namespace: int
    title: str
    #: The new revision of an edit or a creation; None for a log entry.
    revision: int | None = None
    #: The log's type (`delete`, `move`, ...) of a log entry; None otherwise.
    log_type: str | None = None

    @property
    def triggers(self) -> bool:
        """Whether a sync can find something in it: an edit or creation (of any page: a page
        may just have taken the template, or be a redirect), or a log entry that deletes,
        restores, moves, imports or merges pages. Category membership and external
        changes are not: the edit that caused them has its own entry."""
        if self.kind in ("edit", "new"):
            return True
        return self.kind == "log" and self.log_type in LOG_TYPES_THAT_MOVE_PAGES


def parse_datagram(data: bytes) -> Change:
    """The change one datagram announces, or `BadDatagram` saying why it is not one."""
    if len(data) > MAX_DATAGRAM:
        raise BadDatagram(f"oversized: more than {MAX_DATAGRAM} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadDatagram("not UTF-8") from None
    try:
        packet = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise BadDatagram(f"not JSON: {str(exc)[:80]}") from None
    if not isinstance(packet, dict):
        raise BadDatagram("not a JSON object")
    rcid = _integer(packet, "id")
    kind = packet.get("type")
    if not isinstance(kind, str) or kind not in CHANGE_TYPES:
        raise BadDatagram(f"unknown type {str(kind)[:40]!r}")
    namespace = _integer(packet, "namespace", minimum=-2)
    title = packet.get("title")
    if not isinstance(title, str) or not title.strip() or len(title) > 1024:
        raise BadDatagram("no title")
    revision = log_type = None
    if kind in ("edit", "new"):
        revisions = packet.get("revision")
        if not isinstance(revisions, dict):
            raise BadDatagram(f"an {kind} without its revision")
        revision = _integer(revisions, "new", minimum=1)
    elif kind == "log":
        log_type = packet.get("log_type")
        if not isinstance(log_type, str) or not log_type:
            raise BadDatagram("a log entry without its log_type")
    return Change(rcid=rcid, kind=kind, namespace=namespace, title=title, revision=revision, log_type=log_type)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _integer(packet: dict[str, Any], key: str, minimum: int = 0) -> int:
    value = packet.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum or value >= 2**63:
        raise BadDatagram(f"{key} is not a whole number")
    return value


@dataclass(frozen=True)
class ListenAddress:
    host: str
    port: int

    @classmethod
    def parse(cls, text: str) -> ListenAddress:
        """`udp://HOST:PORT` (an IPv6 host in brackets), as `$wgRCFeeds`' `uri` names it."""
        parts = urlsplit(text)
        try:
            port = parts.port
        except ValueError:
            port = None
        if parts.scheme != "udp" or not parts.hostname or port is None or parts.path not in ("", "/"):
            raise FeedError(f"--listen {text!r:.80}: give udp://HOST:PORT (the address the wiki's $wgRCFeeds uri names)")
        return cls(parts.hostname, port)

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"udp://{host}:{self.port}"


def wiki_addresses(api_url: str) -> frozenset[str]:
    """The addresses the wiki's host name resolves to: the only senders taken."""
    parts = urlsplit(api_url)
    host = parts.hostname or ""
    try:
        found = socket.getaddrinfo(host, parts.port or 80, type=socket.SOCK_DGRAM)
    except OSError as exc:
        raise FeedError(f"cannot resolve the wiki's host {host!r}: {exc}") from exc
    return frozenset(_plain(info[4][0]) for info in found)


def _plain(address: str) -> str:
    """An address as compared: an IPv4 address mapped into IPv6 as IPv4, no zone."""
    parsed = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
        parsed = parsed.ipv4_mapped
    return str(parsed)


class FeedListener:
    """The socket the wiki sends its changes to, and the senders it takes them from."""

    def __init__(self, address: ListenAddress, senders: frozenset[str]):
        self.address = address
        self.senders = senders
        family = socket.AF_INET6 if ":" in address.host else socket.AF_INET
        self._socket = socket.socket(family, socket.SOCK_DGRAM)
        try:
            self._socket.bind((address.host, address.port))
        except OSError as exc:
            self._socket.close()
            raise FeedError(f"cannot listen on {address}: {exc}") from exc
        self._socket.setblocking(False)
        self.dropped = 0
        self._warned: dict[str, tuple[float, int]] = {}

    def fileno(self) -> int:
        return self._socket.fileno()

    def port(self) -> int:
        return int(self._socket.getsockname()[1])

    def wait(self, timeout: float) -> bool:
        """Whether a datagram waits, after at most `timeout` seconds of sleep."""
        ready, _, _ = select.select([self._socket], [], [], max(0.0, timeout))
        return bool(ready)

    def receive(self) -> list[Change]:
        """The changes waiting that trigger a sync (`Change.triggers`); the rest dropped,
        foreign and malformed datagrams with a log line."""
        changes = []
        for _ in range(DRAIN_AT_MOST):
            try:
                data, sender = self._socket.recvfrom(MAX_DATAGRAM + 1)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as exc:  # an ICMP error of an earlier send, say: nothing to read
                log.debug("follow: the feed's socket: %s", exc)
                break
            change = self._taken(data, _plain(sender[0]))
            if change is not None and change.triggers:
                changes.append(change)
        return changes

    def _taken(self, data: bytes, sender: str) -> Change | None:
        if sender not in self.senders:
            self._dropped("foreign", "ignored a datagram from %s, not the wiki's address (%s)", sender, ", ".join(sorted(self.senders)))
            return None
        try:
            return parse_datagram(data)
        except BadDatagram as exc:
            # A longer datagram than the buffer arrives cut to it: its length is not known.
            size = f"{len(data)} bytes" if len(data) <= MAX_DATAGRAM else f"over {MAX_DATAGRAM} bytes"
            self._dropped("malformed", "dropped a datagram from %s (%s): %s", sender, size, exc)
            return None

    def _dropped(self, kind: str, message: str, *args: object) -> None:
        self.dropped += 1
        now = time.monotonic()
        last, since = self._warned.get(kind, (-math.inf, 0))
        if now - last < WARN_EVERY:
            self._warned[kind] = (last, since + 1)
            log.debug("follow: " + message, *args)
            return
        more = f" ({since} more of this kind since the last warning)" if since else ""
        log.warning("follow: " + message + more, *args)
        self._warned[kind] = (now, 0)

    def close(self) -> None:
        self._socket.close()
