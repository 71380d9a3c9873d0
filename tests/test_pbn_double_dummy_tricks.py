"""Bridge Composer's `[DoubleDummyTricks]` (issue 31) beside every `OptimumResultTable`: read by
endplay's PBN reader (it keeps every tag) and decoded here by Bridge Composer's order as
public readers and writers of the tag spell it (20 hexadecimal digits: declarers N S E W in
turn, each in NT S H D C), then compared with DDS's own table of the deal endplay read, solved
here by endplay, not with the rows our writer made the tag from."""

from __future__ import annotations

import io
from pathlib import Path

from endplay.dds import calc_dd_table
from endplay.parsers import pbn as endplay_pbn
from endplay.types import Denom, Player

from bridgeshape_mirror.deals.boards.board import board
from bridgeshape_mirror.deals.boards.pbn import PbnExportWriter, PbnGame, PbnTag, double_dummy_tricks
from support.cli import run

BC_DECLARERS = (Player.north, Player.south, Player.east, Player.west)
BC_STRAINS = (Denom.nt, Denom.spades, Denom.hearts, Denom.diamonds, Denom.clubs)
GOLDEN_DD = Path(__file__).resolve().parent / "golden" / "mirror" / "two-scenarios-dd" / "deals" / "7.pbn"
SAMPLE = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"


def decoded(value: str) -> dict[tuple[Player, Denom], int]:
    assert len(value) == 20 and all(c in "0123456789abcdefABCDEF" for c in value), value
    return {(p, d): int(value[5 * i + j], 16) for i, p in enumerate(BC_DECLARERS) for j, d in enumerate(BC_STRAINS)}


def check_against_dds(text: str) -> int:
    boards = endplay_pbn.loads(text)
    checked = 0
    for b in boards:
        assert ("DoubleDummyTricks" in b.info) == ("OptimumResultTable" in b.info)
        if "DoubleDummyTricks" not in b.info:
            continue
        table = calc_dd_table(b.deal)
        for (player, denom), tricks in decoded(b.info["DoubleDummyTricks"]).items():
            assert table[denom, player] == tricks, (b.board_num, player, denom)
        checked += 1
    return checked


def test_the_deals_command_with_dd_writes_the_tag_dds_agrees_with(monkeypatch):
    dsl = "opener H:5+ hcp:12-21 // opener S:5+ hcp:16+; responder hcp:8+"
    code, out, _ = run(monkeypatch, dsl, "--count", "2", "--seed", "3", "--format", "pbn", "--dd")
    assert code == 0
    assert check_against_dds(out.decode("ascii")) == 4


def test_the_mirrors_golden_file_with_tables_has_the_tag_on_every_board():
    assert check_against_dds(GOLDEN_DD.read_text(encoding="ascii")) == 4


def test_no_table_no_tag_and_a_broken_table_none():
    out = io.StringIO()
    writer = PbnExportWriter(out)
    writer.write_game(PbnGame(board(1), SAMPLE, "no table", None, (PbnTag("Generator", "x"),)))
    rows = tuple(f"{s} {d:>2} {7:>2}" for s in "NSEW" for d in ("NT", "S", "H", "D", "C"))
    writer.write_game(PbnGame(board(2), board(2).turn(SAMPLE), "short", None, (PbnTag("OptimumResultTable", "c", rows[:19]),)))
    assert "DoubleDummyTricks" not in out.getvalue()
    assert double_dummy_tricks(rows) == "7" * 20
    assert double_dummy_tricks(rows[:19]) is None
    assert double_dummy_tricks(rows[:19] + ("N NT 14",)) is None  # past 13 tricks
    assert double_dummy_tricks(rows[:19] + (rows[0],)) is None  # one twice, one missing
    # The tag is written once, before the tags after it in the alphabet.
    out = io.StringIO()
    PbnExportWriter(out).write_game(PbnGame(board(1), SAMPLE, "t", None, (PbnTag("OptimumResultTable", "c", rows),)))
    names = [line[1:].split(" ", 1)[0] for line in out.getvalue().split("\r\n") if line.startswith("[")]
    assert names[-2:] == ["DoubleDummyTricks", "OptimumResultTable"]
