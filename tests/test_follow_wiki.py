"""`bridgeshape-mirror follow` on a real MediaWiki whose `$wgRCFeeds` sends to the follower: an
edit reaches the mirror through the feed in seconds, or through the poll with the feed off;
deletions, moves and redirects; datagrams from elsewhere or malformed are dropped; bursts are
coalesced; cron's update takes turns with it; SIGTERM stops it at once."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime

import pytest

from bridgeshape_mirror.exit_codes import ExitCode
from bridgeshape_mirror.store.lock import RunLock

try:
    from support.follow import Follow, free_udp_port, served_revid, wait_for
    from support.wiki_server import WikiServer
except ImportError:  # tests/ imported as a package
    from tests.support.follow import Follow, free_udp_port, served_revid, wait_for  # type: ignore[no-redef]
    from tests.support.wiki_server import WikiServer  # type: ignore[no-redef]

pytestmark = pytest.mark.slow

FEED_PORT = free_udp_port()
FEED = f"udp://127.0.0.1:{FEED_PORT}"
#: Longer than any test: only the feed can explain a publish within seconds.
NO_POLL = 3600.0


def text(dsl_value: str) -> str:
    return f"Una convenzione.\n{{{{Convenzione\n|nome=X\n|shape_constraints={dsl_value}\n}}}}\n"


def dsl(hcp: int) -> str:
    return f"opener hcp:{hcp}-21 H:5+; responder H:3+"


@pytest.fixture(scope="module")
def wiki(mediawiki_installed):
    with WikiServer(rc_feed=FEED).start() as server:
        server.admin.edit("Template:Convenzione", "<code>{{{shape_constraints|}}}</code>")
        for title in ("Splinter", "Stayman", "Cue bid", "Drury"):
            server.admin.edit(title, text(dsl(12)))
        server.run_jobs()
        yield server


def edit(wiki, title: str, hcp: int) -> tuple[int, float]:
    """The edit's new revision, and when its answer came (monotonic)."""
    revision = wiki.admin.edit(title, text(dsl(hcp)))
    return revision, time.monotonic()


def test_an_edit_reaches_the_mirror_through_the_feed(wiki, tmp_path):
    with Follow(wiki.api_url, tmp_path, listen=FEED, poll=NO_POLL) as follow:
        follow.wait_until_ready()
        assert f"the change feed on {FEED} (from 127.0.0.1)" in follow.log()
        before = datetime.now(UTC).replace(microsecond=0)
        revision, answered = edit(wiki, "Splinter", 13)
        wait_for(lambda: served_revid(follow.out, "Splinter") == revision, timeout=10)
        assert time.monotonic() - answered < 10
        status = json.loads((follow.out / "api/status.json").read_text(encoding="utf-8"))
        assert datetime.fromisoformat(status["lastSync"].replace("Z", "+00:00")) >= before

        # A burst: five saves in ten seconds are at most two publishes, the last one served.
        published = follow.published()
        for hcp in range(14, 19):
            revision, _ = edit(wiki, "Splinter", hcp)
            time.sleep(2)
        wait_for(lambda: served_revid(follow.out, "Splinter") == revision, timeout=15)
        time.sleep(1)
        assert follow.published() - published <= 2, follow.log()
        assert follow.log().count(" follow: ok: ") == follow.published()  # one line per publish
    assert follow.process.returncode == ExitCode.OK


def test_with_the_feed_off_the_poll_finds_the_edit(wiki, tmp_path):
    with Follow(wiki.api_url, tmp_path, poll=2) as follow:
        follow.wait_until_ready()
        assert "no change feed" in follow.log()
        revision, answered = edit(wiki, "Stayman", 14)
        wait_for(lambda: served_revid(follow.out, "Stayman") == revision, timeout=15)
        assert time.monotonic() - answered < 15


def test_deletion_move_and_redirect_through_the_feed(wiki, tmp_path):
    admin = wiki.admin
    admin.edit("Rever", text(dsl(12)))
    admin.edit("Lebensohl", text(dsl(12)))
    wiki.run_jobs()
    with Follow(wiki.api_url, tmp_path, "--coalesce", "0", listen=FEED, poll=NO_POLL) as follow:
        follow.wait_until_ready()
        titles = follow.out / "api/get/title"
        assert (titles / "Rever.json").exists()
        admin.delete("Rever")
        wait_for(lambda: not (titles / "Rever.json").exists(), timeout=10)

        page_id = admin.page_id("Lebensohl")
        admin.move("Lebensohl", "Lebensohl (convenzione)", leave_redirect=True)
        moved = titles / "Lebensohl_(convenzione).json"
        wait_for(lambda: moved.exists(), timeout=10)
        assert json.loads(moved.read_text(encoding="utf-8"))["shapeconstraints"]["pageId"] == page_id
        # The old title is now a redirect: it answers the page it leads to.
        wait_for(lambda: (titles / "Lebensohl.json").exists(), timeout=10)
        assert json.loads((titles / "Lebensohl.json").read_text(encoding="utf-8"))["shapeconstraints"]["pageId"] == page_id

        # A new redirect to a convention page is published too.
        admin.edit("Lebensohl slam", "#REDIRECT [[Lebensohl (convenzione)]]")
        wait_for(lambda: (titles / "Lebensohl_slam.json").exists(), timeout=10)
    admin.undelete("Rever")


def _send(payload: bytes, source: str) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
        sender.bind((source, 0))
        sender.sendto(payload, ("127.0.0.1", FEED_PORT))


def _datagram(title: str) -> bytes:
    """A datagram as the wiki would send for a change it did not make."""
    return json.dumps({"id": 10**9, "type": "edit", "namespace": 0, "title": title, "revision": {"old": 1, "new": 10**9}}).encode()


def test_a_datagram_from_another_address_is_ignored(wiki, tmp_path):
    with Follow(wiki.api_url, tmp_path, "-v", listen=FEED, poll=NO_POLL) as follow:
        follow.wait_until_ready()
        cycles = follow.log().count(" follow: ok: ")
        _send(_datagram("Splinter"), source="127.0.0.2")
        wait_for(lambda: "ignored a datagram from 127.0.0.2, not the wiki's address (127.0.0.1)" in follow.log(), timeout=5)
        time.sleep(1)
        assert follow.log().count(" follow: ok: ") == cycles  # no sync was made for it
        # The feed still works.
        revision, _ = edit(wiki, "Cue bid", 15)
        wait_for(lambda: served_revid(follow.out, "Cue bid") == revision, timeout=10)


def test_a_malformed_datagram_is_dropped(wiki, tmp_path):
    with Follow(wiki.api_url, tmp_path, "-v", listen=FEED, poll=NO_POLL) as follow:
        follow.wait_until_ready()
        cycles = follow.log().count(" follow: ok: ")
        _send(b'{"id": 12, "type": "edit", "title": ', source="127.0.0.1")
        _send(b"x" * 20_000, source="127.0.0.1")
        wait_for(lambda: "(over 16384 bytes): oversized" in follow.log(), timeout=5)
        assert "dropped a datagram from 127.0.0.1 (36 bytes): not JSON" in follow.log()
        time.sleep(1)
        assert follow.log().count(" follow: ok: ") == cycles
        revision, _ = edit(wiki, "Cue bid", 16)
        wait_for(lambda: served_revid(follow.out, "Cue bid") == revision, timeout=10)
        assert follow.process.poll() is None


def update(wiki, follow: Follow) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bridgeshape_mirror.cli", "update", "--api", wiki.api_url, "--state", str(follow.state),
         "--out", str(follow.out), "--deals", "2", "--no-dd", "--contact", "tests@example.org"],
        capture_output=True, text=True, timeout=300,
    )


def test_follow_and_update_take_turns_with_the_lock(wiki, tmp_path):
    with Follow(wiki.api_url, tmp_path, "--coalesce", "0", listen=FEED, poll=NO_POLL) as follow:
        follow.wait_until_ready()
        # Cron's update while the follower runs, and while it publishes an edit.
        assert update(wiki, follow).returncode == ExitCode.OK
        revision, _ = edit(wiki, "Drury", 13)
        done = update(wiki, follow)
        assert done.returncode == ExitCode.OK, done.stderr
        wait_for(lambda: served_revid(follow.out, "Drury") == revision, timeout=10)

        # A long run holds the lock: the follower waits its turn, then publishes. The run waits
        # for the follower's turn first, as a run does (the follower may still hold the lock
        # for what follows the publish just seen).
        with RunLock(follow.state, wait=30):
            revision, _ = edit(wiki, "Drury", 14)
            time.sleep(3)
            assert served_revid(follow.out, "Drury") != revision
            assert follow.process.poll() is None
        wait_for(lambda: served_revid(follow.out, "Drury") == revision, timeout=10)
        assert "FAILED" not in follow.log()


@pytest.mark.parametrize(
    "sig, name, ignored",
    [(signal.SIGTERM, "SIGTERM", False), (signal.SIGINT, "SIGINT", False), (signal.SIGINT, "SIGINT", True)],
    ids=["SIGTERM", "SIGINT", "SIGINT-started-ignored"],
)
def test_a_signal_stops_an_idle_follower_within_a_second(wiki, tmp_path, sig, name, ignored):
    # `ignored`: a background job of a shell without job control starts with SIGINT ignored;
    # a service told to stop by SIGINT (its unit, `kill -INT`) stops all the same, as `serve` does.
    with Follow(wiki.api_url, tmp_path, listen=FEED, poll=NO_POLL, sigint_ignored=ignored) as follow:
        follow.wait_until_ready()
        time.sleep(0.5)
        started = time.monotonic()
        assert follow.stop(sig, timeout=5) == ExitCode.OK
        assert time.monotonic() - started < 1.0
        assert f"follow: stopped ({name})" in follow.log()
        # The lock is free: a run right after it does not wait.
        with RunLock(follow.state):
            pass
