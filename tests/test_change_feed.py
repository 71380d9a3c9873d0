"""The change feed's datagrams (MediaWiki's JSON formatter) and the listener's sender check."""

from __future__ import annotations

import json
import logging
import socket

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridgeshape_mirror.sync.change_feed import (
    MAX_DATAGRAM,
    BadDatagram,
    Change,
    FeedListener,
    ListenAddress,
    parse_datagram,
    wiki_addresses,
)
from bridgeshape_mirror.sync.errors import FeedError

#: A datagram as MediaWiki 1.39's JSONRCFeedFormatter sends an edit (captured from the test wiki).
EDIT = {
    "id": 41, "type": "edit", "namespace": 0, "title": "Splinter", "comment": "più cuori", "timestamp": 1796304000,
    "user": "Admin", "bot": False, "minor": False, "length": {"old": 120, "new": 124}, "revision": {"old": 17, "new": 18},
    "server_url": "http://127.0.0.1:8080", "server_name": "127.0.0.1", "server_script_path": "/", "wiki": "wiki",
}
MOVE = {
    "id": 42, "type": "log", "namespace": 0, "title": "Stayman", "comment": "", "timestamp": 1796304001, "user": "Admin",
    "bot": False, "log_id": 9, "log_type": "move", "log_action": "move",
    "log_params": {"target": "Stayman (convenzione)", "noredir": "1"}, "log_action_comment": "moved [[Stayman]]",
    "server_url": "http://127.0.0.1:8080", "server_name": "127.0.0.1", "server_script_path": "/", "wiki": "wiki",
}


def encoded(packet: object) -> bytes:
    return json.dumps(packet).encode("utf-8")


def test_an_edit_and_a_move_as_mediawiki_sends_them():
    assert parse_datagram(encoded(EDIT)) == Change(rcid=41, kind="edit", namespace=0, title="Splinter", revision=18)
    move = parse_datagram(encoded(MOVE))
    assert move == Change(rcid=42, kind="log", namespace=0, title="Stayman", log_type="move")
    assert move.triggers and parse_datagram(encoded(EDIT)).triggers


def test_what_triggers_a_sync():
    patrol = parse_datagram(encoded({**MOVE, "log_type": "patrol"}))
    categorize = parse_datagram(encoded({k: v for k, v in EDIT.items() if k != "revision"} | {"type": "categorize"}))
    assert not patrol.triggers and not categorize.triggers
    for kind in ("delete", "move", "import", "merge", "upload"):
        assert parse_datagram(encoded({**MOVE, "log_type": kind})).triggers


titles = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=80).filter(lambda t: t.strip())
ids = st.integers(min_value=0, max_value=2**63 - 1)


@given(rcid=ids, namespace=st.integers(-2, 3000), title=titles, revision=st.integers(1, 2**63 - 1), kind=st.sampled_from(["edit", "new"]),
       extra=st.dictionaries(st.text(max_size=10).filter(lambda k: k not in EDIT), st.none() | st.integers() | st.text(max_size=20), max_size=4))
def test_any_well_formed_edit_reads_back(rcid, namespace, title, revision, kind, extra):
    packet = {**extra, **EDIT, "id": rcid, "type": kind, "namespace": namespace, "title": title, "revision": {"old": None, "new": revision}}
    assert parse_datagram(encoded(packet)) == Change(rcid, kind, namespace, title, revision=revision)


@settings(max_examples=300)
@given(st.binary(max_size=2 * 1024))
def test_any_bytes_are_a_change_or_bad_datagram(data):
    try:
        change = parse_datagram(data)
    except BadDatagram:
        return
    assert isinstance(change, Change)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@given(key=st.sampled_from(["id", "type", "namespace", "title", "revision"]), value=json_values)
def test_a_required_field_of_the_wrong_kind_is_refused(key, value):
    good = {"id": 41, "type": "edit", "namespace": 0, "title": "Splinter", "revision": {"new": 18}}
    valid = (
        (key == "id" and type(value) is int and 0 <= value < 2**63)
        or (key == "type" and value in ("edit", "new", "categorize", "external"))
        or (key == "namespace" and type(value) is int and -2 <= value < 2**63)
        or (key == "title" and isinstance(value, str) and value.strip() != "")
        or (key == "revision" and isinstance(value, dict) and type(value.get("new")) is int and 1 <= value["new"] < 2**63)
    )
    packet = {**good, key: value}
    if valid:
        assert parse_datagram(encoded(packet)).rcid == packet["id"]
    else:
        with pytest.raises(BadDatagram):
            parse_datagram(encoded(packet))


@pytest.mark.parametrize(
    "data, why",
    [
        (b"\xff\xfe", "not UTF-8"),
        (b'{"id": 1', "not JSON"),
        (b'{"id": NaN, "type": "edit"}', "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (encoded({**EDIT, "id": True}), "id is not a whole number"),
        (encoded({**EDIT, "id": -1}), "id is not a whole number"),
        (encoded({**EDIT, "type": "vandalism"}), "unknown type"),
        (encoded({k: v for k, v in EDIT.items() if k != "revision"}), "without its revision"),
        (encoded({k: v for k, v in MOVE.items() if k != "log_type"}), "without its log_type"),
        (b"[" * 100_000, "oversized"),
        (encoded({**EDIT, "comment": "x" * MAX_DATAGRAM}), "oversized"),
    ],
)
def test_malformed_datagrams_say_why(data, why):
    with pytest.raises(BadDatagram, match=why):
        parse_datagram(data)


def test_deep_nesting_within_the_bound_is_refused_not_a_crash():
    with pytest.raises(BadDatagram):
        parse_datagram(b"[" * (MAX_DATAGRAM // 2) + b"]" * (MAX_DATAGRAM // 2))


@pytest.mark.parametrize("text, host, port", [("udp://127.0.0.1:8095", "127.0.0.1", 8095), ("udp://[::1]:9000", "::1", 9000)])
def test_listen_addresses(text, host, port):
    address = ListenAddress.parse(text)
    assert (address.host, address.port, str(address)) == (host, port, text)


@pytest.mark.parametrize("text", ["127.0.0.1:8095", "tcp://127.0.0.1:8095", "udp://127.0.0.1", "udp://127.0.0.1:x", "udp://h:1/path"])
def test_bad_listen_addresses(text):
    with pytest.raises(FeedError, match="udp://HOST:PORT"):
        ListenAddress.parse(text)


def test_the_wiki_host_resolves_to_its_addresses():
    assert wiki_addresses("http://127.0.0.1:8080/api.php") == {"127.0.0.1"}
    assert "127.0.0.1" in wiki_addresses("http://localhost/w/api.php") or "::1" in wiki_addresses("http://localhost/w/api.php")


def _send(payload: bytes, port: int, source: str = "127.0.0.1") -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
        sender.bind((source, 0))
        sender.sendto(payload, ("127.0.0.1", port))


def test_the_listener_takes_the_wikis_datagrams_only(caplog):
    listener = FeedListener(ListenAddress("127.0.0.1", 0), frozenset({"127.0.0.1"}))
    try:
        port = listener.port()
        assert not listener.wait(0.05)
        with caplog.at_level(logging.DEBUG, logger="bridgeshape_mirror"):
            _send(encoded(EDIT), port, source="127.0.0.2")  # loopback, but not the wiki's address
            _send(b"not json", port)
            _send(encoded({**MOVE, "log_type": "patrol"}), port)
            _send(encoded(EDIT), port)
            assert listener.wait(1.0)
            received = []
            for _ in range(20):
                received += listener.receive()
                if received:
                    break
                listener.wait(0.1)
        assert received == [parse_datagram(encoded(EDIT))]
        assert listener.dropped == 2
        assert "ignored a datagram from 127.0.0.2, not the wiki's address (127.0.0.1)" in caplog.text
        assert "dropped a datagram from 127.0.0.1 (8 bytes): not JSON" in caplog.text
    finally:
        listener.close()


def test_a_flood_of_bad_datagrams_is_one_warning(caplog):
    listener = FeedListener(ListenAddress("127.0.0.1", 0), frozenset({"127.0.0.1"}))
    try:
        with caplog.at_level(logging.WARNING, logger="bridgeshape_mirror"):
            for _ in range(50):
                _send(b"{", listener.port())
            listener.wait(1.0)
            while listener.dropped < 50 and listener.wait(0.5):
                listener.receive()
        assert listener.dropped == 50
        assert caplog.text.count("dropped a datagram") == 1
    finally:
        listener.close()


def test_listening_on_an_address_in_use_is_a_feed_error():
    first = FeedListener(ListenAddress("127.0.0.1", 0), frozenset())
    try:
        with pytest.raises(FeedError, match="cannot listen on udp://127.0.0.1:"):
            FeedListener(ListenAddress("127.0.0.1", first.port()), frozenset())
    finally:
        first.close()
