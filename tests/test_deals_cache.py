"""The disk cache of slow exact counts: round trip, corruption, switch-off."""

from __future__ import annotations

from bridgeshape_mirror.deals.counting import cache


def test_round_trip_and_corruption(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("BSM_DEALS_CACHE", raising=False)
    key = ("scenario", 1, (2, 3))
    assert cache.get_int("cross", key) is None
    cache.put_int("cross", key, 10**25 + 7)
    assert cache.get_int("cross", key) == 10**25 + 7
    assert cache.get_int("cross", ("other",)) is None
    (entry,) = (tmp_path / "bridgeshape-mirror" / "deals").glob("cross-*.json")
    entry.write_text("{not json")
    assert cache.get_int("cross", key) is None  # a miss, never an error


def test_switched_off(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("BSM_DEALS_CACHE", "0")
    cache.put_int("cross", "k", 5)
    assert cache.get_int("cross", "k") is None
    assert not (tmp_path / "bridgeshape-mirror").exists()


def test_bounded_drops_the_least_recently_used_past_its_budgets():
    from bridgeshape_mirror.deals.counting.cache import Bounded

    kept = Bounded(len)
    for key in "abc":
        kept.put(key, [0] * 10, items=3, max_bytes=30)
    assert kept.get("a") is not None  # a is now the most recent: b goes first
    kept.put("d", [0] * 10, items=3, max_bytes=30)
    assert kept.get("b") is None and len(kept) == 3
    kept.put("e", [0] * 25, items=10, max_bytes=30)  # past the bytes: the older ones go, oldest first
    assert [len(v) for v in kept.values()] == [25]
    kept.put("f", [0] * 99, items=10, max_bytes=30)
    assert [len(v) for v in kept.values()] == [99]  # the newest always stays


def test_bounded_measures_again_what_was_used_since_the_last_addition():
    from bridgeshape_mirror.deals.counting.cache import Bounded

    kept = Bounded(len)
    grows = kept.put("a", [0] * 5, items=10, max_bytes=30)
    kept.put("b", [0] * 5, items=10, max_bytes=30)
    assert kept.get("a") is grows
    grows.extend([0] * 20)  # a value that grew while in use (a model's draw tables)
    kept.put("c", [0] * 5, items=10, max_bytes=30)  # 25 + 5 + 5 > 30: the oldest, b, goes
    assert kept.get("b") is None and kept.get("a") is grows
    kept.clear()
    assert len(kept) == 0 and kept.get("a") is None
