"""The JSON's two deal strings (issue 31): `pbn` is the canonical orientation (the opener North,
whatever the board) and `board_pbn` the board as dealt, the one the PBN file has (read by
endplay); the schema says so in its descriptions, so no client reads `pbn` as the board."""

from __future__ import annotations

import json
from pathlib import Path

from endplay.parsers import pbn as endplay_pbn
from endplay.types import Deal, Player

from support.cli import run

SCHEMA = Path(__file__).resolve().parent.parent / "site_builder" / "schemas" / "deals.json"
#: The opener with 6+ hearts, responder with 5+ spades: each hand's role is seen in its cards.
DSL = "opener H:6+ S:0-2 hcp:12-21; responder S:5+ H:0-2"


def _deal_schema() -> dict:
    scenario = json.loads(SCHEMA.read_text(encoding="utf-8"))["properties"]["scenarios"]["items"]
    return scenario["properties"]["deals"]["items"]["properties"]


def test_pbn_is_opener_north_and_board_pbn_the_board_endplay_reads(monkeypatch):
    code, out, _ = run(monkeypatch, DSL, "--count", "8", "--seed", "6", "--format", "json")
    assert code == 0
    deals = json.loads(out)["scenarios"][0]["deals"]
    code, pbn_file, _ = run(monkeypatch, DSL, "--count", "8", "--seed", "6", "--format", "pbn")
    boards = {b.board_num: b for b in endplay_pbn.loads(pbn_file.decode("ascii"))}
    assert {d["board"] for d in deals} == set(boards) and len(deals) == 8
    dealers = set()
    for d in deals:
        board = boards[d["board"]]
        assert Deal(d["board_pbn"]).to_pbn() == board.deal.to_pbn()  # the board, seat by seat
        canonical = Deal(d["pbn"])
        assert d["pbn"].startswith("N:")
        # The opener North, responder South, whoever deals: the roles are seen in the cards.
        assert len(canonical.north.hearts) >= 6 and len(canonical.south.spades) >= 5
        dealer = Player.find(d["dealer"])
        assert board.dealer == dealer and len(board.deal[dealer].hearts) >= 6
        assert len(board.deal[dealer.partner].spades) >= 5
        dealers.add(d["dealer"])
    assert dealers == {"N", "E", "S", "W"}  # boards whose dealer is not North: the two differ


def test_the_schema_says_which_string_is_the_board():
    fields = _deal_schema()
    pbn, board_pbn = fields["pbn"]["description"], fields["board_pbn"]["description"]
    assert "canonical orientation" in pbn and "opener North" in pbn and "NOT the board as dealt" in pbn
    assert "board as dealt" in board_pbn and "dealer" in board_pbn
