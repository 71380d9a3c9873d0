"""The follower's schedule on a simulated clock: when it publishes for the changes it hears,
the polls, the coalescing of bursts, the syncs again for a change not yet visible, and a
signal while idle. (The real thing, against MediaWiki: tests/test_follow_wiki.py.)"""

from __future__ import annotations

import re

import pytest

from bridgeshape_mirror.commands import follow as follow_command
from bridgeshape_mirror.commands.common import Failure
from bridgeshape_mirror.config import Config
from bridgeshape_mirror.exit_codes import ExitCode, Terminated
from bridgeshape_mirror.sync.change_feed import Change


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Stop(Exception):
    pass


class FakeListener:
    """Changes announced at given times; `wait` moves the clock to the next one or the timeout."""

    def __init__(self, clock: Clock, changes: list[tuple[float, int]], until: float, signal: type[BaseException] = Stop):
        self.clock = clock
        self.changes = sorted(changes)
        self.until = until
        self.signal = signal
        self.senders = frozenset({"127.0.0.1"})
        self.waits: list[float] = []

    def wait(self, timeout: float) -> bool:
        self.waits.append(timeout)
        target = self.clock.now + timeout
        if self.changes and self.changes[0][0] <= target:
            self.clock.now = max(self.clock.now, self.changes[0][0])
            return True
        if target >= self.until:
            raise self.signal()
        self.clock.now = target
        return False

    def receive(self) -> list[Change]:
        heard = []
        while self.changes and self.changes[0][0] <= self.clock.now:
            _, rcid = self.changes.pop(0)
            heard.append(Change(rcid=rcid, kind="edit", namespace=0, title="Splinter", revision=rcid))
        return heard


class Recording(follow_command.Follower):
    """A follower whose publishes take `seconds` and see the changes up to `visible(now)`."""

    def __init__(self, clock: Clock, listener: FakeListener, seconds: float = 0.4, visible=None, **config):
        super().__init__(Config(api="http://127.0.0.1/api.php", **config), listener, clock=clock)
        self.published: list[float] = []
        self.seconds = seconds
        self.visible = visible or (lambda now: 10**9)

    def _refresh_senders(self) -> None:
        pass

    def _publish(self):
        self.published.append(self.clock())
        self.clock.now += self.seconds
        return None, self.visible(self.clock())


def run(follower: Recording) -> None:
    with pytest.raises(Stop):
        follower.run()


def test_a_change_after_a_quiet_spell_is_published_at_once_and_the_poll_keeps_its_period():
    clock = Clock()
    follower = Recording(clock, FakeListener(clock, [(100.0, 1)], until=250.0), poll=60.0, coalesce=10.0)
    run(follower)
    # At start (what changed while stopped), the polls, and the change 0.25 s after it came.
    assert follower.published[:3] == [0.0, pytest.approx(60.4), pytest.approx(100.25)]
    assert follower.published[3] == pytest.approx(100.65 + 60.0)


def test_five_saves_in_ten_seconds_are_at_most_two_publishes():
    clock = Clock()
    saves = [(100.0 + 2.5 * n, n + 1) for n in range(5)]  # 100 .. 110
    follower = Recording(clock, FakeListener(clock, saves, until=150.0), poll=1000.0, coalesce=10.0)
    run(follower)
    burst = [t for t in follower.published if t >= 100.0]
    assert burst == [pytest.approx(100.25), pytest.approx(110.25)]


def test_without_coalescing_each_save_is_published():
    clock = Clock()
    saves = [(100.0 + 2.5 * n, n + 1) for n in range(5)]
    follower = Recording(clock, FakeListener(clock, saves, until=150.0), poll=1000.0, coalesce=0.0)
    run(follower)
    assert len([t for t in follower.published if t >= 100.0]) == 5


def test_a_change_not_yet_visible_is_synced_again_then_left_to_the_poll():
    clock = Clock()
    # Change 7 becomes visible to the API 1 s after it was announced.
    follower = Recording(clock, FakeListener(clock, [(100.0, 7)], until=200.0), visible=lambda now: 7 if now >= 101.0 else 6,
                         poll=1000.0, coalesce=10.0)
    run(follower)
    after = [t for t in follower.published if t >= 100.0]
    assert after == [pytest.approx(100.25), pytest.approx(101.15)]  # once more, 0.5 s after the first ended

    clock = Clock()
    never = Recording(clock, FakeListener(clock, [(100.0, 7)], until=200.0), visible=lambda now: 6, poll=1000.0, coalesce=10.0)
    run(never)
    assert len([t for t in never.published if t >= 100.0]) == 1 + follow_command.RETRIES


def test_a_failed_publish_is_not_retried_before_the_next_change_or_poll():
    clock = Clock()
    follower = Recording(clock, FakeListener(clock, [(100.0, 7)], until=200.0), visible=lambda now: 0, poll=1000.0, coalesce=10.0)
    follower._publish = lambda: (follower.published.append(clock()), Failure(ExitCode.WIKI_ERROR, "down"), 0)[1:]
    run(follower)
    assert len([t for t in follower.published if t >= 100.0]) == 1


def test_idle_waits_are_long_not_a_busy_loop():
    clock = Clock()
    listener = FakeListener(clock, [], until=600.0)
    follower = Recording(clock, listener, poll=60.0, coalesce=10.0)
    run(follower)
    assert len(listener.waits) <= 11 and min(listener.waits) > 59


@pytest.mark.parametrize("signal", [Terminated, KeyboardInterrupt])
def test_a_signal_while_idle_ends_the_run_with_status_0(signal):
    clock = Clock()
    follower = Recording(clock, FakeListener(clock, [], until=30.0, signal=signal), poll=60.0, coalesce=10.0)
    assert follower.run() == ExitCode.OK


def test_the_follow_section_of_the_configuration(tmp_path):
    from bridgeshape_mirror.config import ConfigError, load

    path = tmp_path / "mirror.toml"
    path.write_text('[wiki]\napi = "http://127.0.0.1/api.php"\n[follow]\nlisten = "udp://127.0.0.1:8095"\npoll = 5\ncoalesce = 0\n')
    config = load(str(path), {"poll": None})
    assert (config.listen, config.poll, config.coalesce) == ("udp://127.0.0.1:8095", 5, 0)
    assert (Config().listen, Config().poll, Config().coalesce) == (None, 60.0, 10.0)
    for bad, why in (("poll = 0", "poll = 0 must be more than 0"), ("coalesce = -1", "coalesce = -1 must be 0 or more"),
                     ('listen = 8095', "listen = 8095 is not a string"), ("wait = 3", "unknown key 'wait' in [follow]")):
        path.write_text(f"[follow]\n{bad}\n")
        with pytest.raises(ConfigError, match=re.escape(why)):
            load(str(path), {})


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--dump", "export.xml"], "follow reads a live wiki: give --api URL, not --dump"),
        (["--api", "http://127.0.0.1:9/api.php", "--listen", "127.0.0.1:8095"], "give udp://HOST:PORT"),
        (["--api", "http://no-such-host.invalid/api.php", "--listen", "udp://127.0.0.1:0"], "cannot resolve the wiki's host"),
    ],
)
def test_a_follower_that_cannot_start_says_why_with_status_2(argv, says, tmp_path, capsys):
    from bridgeshape_mirror.cli import main

    assert main(["follow", "--state", str(tmp_path / "state.sqlite"), "--out", str(tmp_path / "out"), *argv]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "follow: FAILED (exit 2 usage): follow not started: " in err and says in err


def test_a_signal_in_a_publish_stops_the_run_as_any_stopped_run(monkeypatch, tmp_path):
    """Not status 0: cli.main says the run was stopped, and the mirror is as a failed run leaves it."""
    calls = []

    def stopped(config, sync_line):
        calls.append(config.state)
        raise Terminated()

    monkeypatch.setattr(follow_command, "sync_then_build", stopped)
    clock = Clock()
    config = Config(api="http://127.0.0.1/api.php", state=str(tmp_path / "state.sqlite"))
    follower = follow_command.Follower(config, FakeListener(clock, [], until=100.0), clock=clock)
    with pytest.raises(Terminated):
        follower.run()
    assert calls == [config.state]
    from bridgeshape_mirror.store.lock import RunLock

    with RunLock(config.state):  # released on the way out
        pass


def test_a_failed_publish_leaves_the_follower_running(monkeypatch, tmp_path):
    from bridgeshape_mirror.sync.errors import WikiUnavailable

    def down(config, sync_line):
        raise WikiUnavailable("the wiki is down")

    monkeypatch.setattr(follow_command, "sync_then_build", down)
    clock = Clock()
    config = Config(api="http://127.0.0.1/api.php", state=str(tmp_path / "state.sqlite"), poll=60.0)
    listener = FakeListener(clock, [], until=200.0, signal=Terminated)
    assert follow_command.Follower(config, listener, clock=clock).run() == ExitCode.OK
    assert len(listener.waits) == 4  # a poll a minute, failed each time, and the signal while idle
