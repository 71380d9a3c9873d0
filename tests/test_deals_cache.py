"""The disk cache of slow exact counts: round trip, corruption, switch-off."""

from __future__ import annotations

from deals import cache


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
