"""A flaky or hostile wiki: every fault ends in bounded time, with a clear log line, and the
state store exactly as it was. Faults come from `responses`, since a real server will not
produce them on demand."""

from __future__ import annotations

import logging

import pytest
import requests
import responses

from bridgeshape_mirror.store.state import StateStore
from bridgeshape_mirror.sync.client import ClientSettings, WikiClient, user_agent
from bridgeshape_mirror.sync.errors import BadSource, WikiApiError, WikiGarbage, WikiUnavailable
from bridgeshape_mirror.sync.syncer import ApiSync, SyncSettings

from support.fake_wiki import API, FakeWiki, convention_text, http_status, json_error


class FakeTime:
    """sleep() advances the clock instead of waiting, so retries cost no real time."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def wiki():
    wiki = FakeWiki()
    for i in range(1, 4):
        wiki.add(i, f"Convenzione {i}", convention_text(f"opener H:{i}+"))
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        wiki.install(mock)
        yield wiki


@pytest.fixture
def fake_time():
    return FakeTime()


def make_client(fake_time: FakeTime, **overrides) -> WikiClient:
    options = {"contact": "ops@example.org", "backoff": 1.0, "max_retries": 3, "deadline": 120.0, **overrides}
    settings = ClientSettings(api_url=API, **options)
    return WikiClient(settings, sleep=fake_time.sleep, clock=fake_time.clock)


def synced_store(tmp_path, wiki, fake_time) -> StateStore:
    store = StateStore(tmp_path / "state.sqlite")
    ApiSync(make_client(fake_time), store, SyncSettings()).run()
    return store


def snapshot(store: StateStore):
    return store.pages(), store.get_meta("cursor"), store.get_meta("last_sync")


def test_every_request_carries_maxlag_user_agent_and_json_format(wiki, fake_time):
    client = make_client(fake_time)
    client.call("query", meta="siteinfo")
    params, headers = wiki.calls[-1], wiki.headers[-1]
    assert params["maxlag"] == "5" and params["format"] == "json" and params["formatversion"] == "2"
    assert headers["User-Agent"] == user_agent("ops@example.org")
    assert headers["User-Agent"].startswith("bridgeshape-mirror/0.1.0 (ops@example.org) mwclient/0.11")


def test_maxlag_error_is_retried_after_retry_after(wiki, fake_time, caplog):
    wiki.faults.append(json_error("maxlag", "Waiting for 10.0.0.1: 7 seconds lagged", headers={"Retry-After": "7", "X-Database-Lag": "7"}))
    wiki.faults.append(json_error("maxlag", "lagged", headers={"Retry-After": "3"}))
    with caplog.at_level(logging.WARNING):
        data = make_client(fake_time).call("query", meta="siteinfo")
    assert "query" in data
    assert fake_time.sleeps[0] >= 7 and fake_time.sleeps[1] >= 3
    assert "maxlag" in caplog.text and "retry 1 of 3" in caplog.text


def test_429_with_retry_after_is_honoured(wiki, fake_time):
    wiki.faults.append(http_status(429, {"Retry-After": "11"}))
    make_client(fake_time).call("query", meta="siteinfo")
    assert fake_time.sleeps == [11.0]
    assert len(wiki.calls) == 2


def test_503_forever_gives_up_after_the_retries(wiki, fake_time, tmp_path, caplog):
    store = synced_store(tmp_path, wiki, fake_time)
    before = snapshot(store)
    wiki.edit(1, convention_text("opener S:5+"))
    wiki.faults.extend([http_status(503)] * 10)
    calls = len(wiki.calls)
    with pytest.raises(WikiUnavailable, match="HTTP 503"):
        ApiSync(make_client(fake_time), store, SyncSettings()).run()
    assert len(wiki.calls) - calls == 4  # one try and three retries
    assert fake_time.sleeps[-3:] == [1.0, 2.0, 4.0]  # exponential backoff
    assert snapshot(store) == before


def test_timeouts_are_retried_then_reported(wiki, fake_time):
    wiki.faults.extend([requests.exceptions.ReadTimeout("slow")] * 2)
    assert "query" in make_client(fake_time).call("query", meta="siteinfo")
    wiki.faults.extend([requests.exceptions.ConnectTimeout("slow")] * 5)
    with pytest.raises(WikiUnavailable, match="no answer"):
        make_client(fake_time).call("query", meta="siteinfo")


def test_connection_refused_is_a_clear_error(fake_time):
    with responses.RequestsMock() as mock:
        mock.add(responses.GET, API, body=requests.exceptions.ConnectionError("refused"))
        with pytest.raises(WikiUnavailable, match="cannot connect"):
            make_client(fake_time, max_retries=1).call("query", meta="siteinfo")


def test_garbage_is_retried_then_reported_and_state_kept(wiki, fake_time, tmp_path):
    store = synced_store(tmp_path, wiki, fake_time)
    before = snapshot(store)
    wiki.faults.extend([(200, {"Content-Type": "text/html"}, "<html>Fatal error</html>")] * 4)
    with pytest.raises(WikiGarbage, match="not JSON"):
        ApiSync(make_client(fake_time), store, SyncSettings()).run()
    assert snapshot(store) == before


def test_json_that_is_not_an_object_is_garbage(wiki, fake_time):
    wiki.faults.extend([(200, {"Content-Type": "application/json"}, "[1, 2]")] * 4)
    with pytest.raises(WikiGarbage):
        make_client(fake_time).call("query", meta="siteinfo")


def test_non_retryable_api_error_fails_at_once(wiki, fake_time):
    wiki.faults.append(json_error("badvalue", "Unrecognized value for parameter \"list\""))
    with pytest.raises(WikiApiError, match="badvalue"):
        make_client(fake_time).call("query", list="nonsense")
    assert fake_time.sleeps == [] and len(wiki.calls) == 1


def test_404_is_not_retried(wiki, fake_time):
    wiki.faults.append(http_status(404, body="Not Found"))
    with pytest.raises(WikiUnavailable, match="HTTP 404"):
        make_client(fake_time).call("query", meta="siteinfo")
    assert len(wiki.calls) == 1


def test_retry_after_beyond_the_deadline_ends_the_run_at_once(wiki, fake_time):
    wiki.faults.append(http_status(503, {"Retry-After": "3600"}))
    with pytest.raises(WikiUnavailable, match="deadline"):
        make_client(fake_time).call("query", meta="siteinfo")
    assert fake_time.sleeps == []


def test_deadline_bounds_the_whole_run(wiki, fake_time):
    client = make_client(fake_time, deadline=10.0)
    wiki.faults.extend([http_status(503, {"Retry-After": "4"})] * 10)
    with pytest.raises(WikiUnavailable):
        client.call("query", meta="siteinfo")
    assert fake_time.now - 1000.0 <= 10.0


def test_bad_api_url_is_refused():
    with pytest.raises(BadSource):
        WikiClient(ClientSettings(api_url="http://wiki.test/index.php"))


def test_continuation_across_batches_and_a_page_split_over_two_responses(wiki, fake_time, tmp_path):
    for i in range(4, 121):
        wiki.add(i, f"Pagina {i}", convention_text(f"opener hcp:{i % 30}+"))
    wiki.split_batches = True
    store = StateStore(tmp_path / "state.sqlite")
    report = ApiSync(make_client(fake_time), store, SyncSettings()).run()
    pages = store.pages()
    assert [p.page_id for p in pages] == list(range(1, 121))
    assert all(p.raw and p.revid == p.page_id * 10 for p in pages)
    generator_calls = [c for c in wiki.calls if c.get("generator") == "embeddedin"]
    assert all(c["geilimit"] == "50" for c in generator_calls)
    assert report.created == 120 and report.pages_total == 120
