"""Double-dummy tables and par (deals/double_dummy.py) against DDS's own test set and hand
checks, its PBN tags, and the table kept in the state store (store/dd_tables.py)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridgeshape_mirror.deals.boards.board import Board, board
from bridgeshape_mirror.deals.double_dummy import (
    RESULT_TABLE_TAG,
    STRAINS,
    DDTable,
    ParContract,
    Summary,
    par,
    pbn_tags,
    solve,
    summary,
)
from bridgeshape_mirror.deals.boards.pbn import PbnTag
from bridgeshape_mirror.dsl.deck import RANK_LETTERS
from bridgeshape_mirror.dsl.model import Role
from bridgeshape_mirror.store.dd_tables import DDTables
from bridgeshape_mirror.store.errors import StateError
from bridgeshape_mirror.store.state import StateStore

#: North-South hold every card higher than any of East-West's, in every suit.
TOP_CARDS = "N:AKQJ.AKQJ.AKQ.AK 765.765.8765.876 T98.T98.JT9.QJT9 432.432.432.5432"

#: Deals 1 and 3 of DDS's example set (examples/hands.cpp), with the tables it expects there:
#: per strain S H D C NT, the tricks of North, East, South, West.
DDS_HAND_1 = "N:QJ6.K652.J85.T98 873.J97.AT764.Q4 K5.T83.KQ9.A7652 AT942.AQ4.32.KJ3"
DDS_TABLE_1 = (5, 8, 5, 8, 6, 6, 6, 6, 5, 7, 5, 7, 7, 5, 7, 5, 6, 6, 6, 6)
DDS_HAND_3 = "N:73.QJT.AQ54.T752 QT6.876.KJ9.AQ84 5.A95432.7632.K6 AKJ9842.K.T8.J93"
DDS_TABLE_3 = (3, 10, 3, 10, 9, 4, 9, 4, 8, 4, 8, 4, 3, 9, 3, 9, 4, 8, 4, 8)

SEAT_OF = {Role.OPENER: 0, Role.OPP1: 1, Role.RESPONDER: 2, Role.OPP2: 3}


def dds_order(table: DDTable) -> tuple[int, ...]:
    """Our table in the order of DDS's example file (the opener is North)."""
    by_seat = {seat: role for role, seat in SEAT_OF.items()}
    return tuple(table.of(by_seat[seat], strain) for strain in ("S", "H", "D", "C", "NT") for seat in range(4))


@pytest.fixture(scope="module")
def tables() -> dict[str, DDTable]:
    deals = [TOP_CARDS, DDS_HAND_1, DDS_HAND_3]
    return dict(zip(deals, solve(deals)))


def test_the_side_with_every_top_card_makes_13_in_every_strain(tables):
    table = tables[TOP_CARDS]
    for role in (Role.OPENER, Role.RESPONDER):
        assert [table.of(role, strain) for strain in STRAINS] == [13] * 5
    # Defending, their opponents take no trick in notrump (a trump suit may let them ruff).
    assert table.of(Role.OPP1, "NT") == table.of(Role.OPP2, "NT") == 0


def test_dds_example_deals_give_their_published_tables(tables):
    assert dds_order(tables[DDS_HAND_1]) == DDS_TABLE_1
    assert dds_order(tables[DDS_HAND_3]) == DDS_TABLE_3


def test_the_table_is_keyed_by_role_and_strain(tables):
    doc = tables[DDS_HAND_1].to_json()
    assert list(doc) == ["opener", "responder", "opp1", "opp2"]
    assert list(doc["opener"]) == ["NT", "S", "H", "D", "C"]
    assert doc["opp1"] == {"NT": 6, "S": 8, "H": 6, "D": 7, "C": 5}


def test_dds_example_par_on_its_own_board(tables):
    # hands.cpp: deal 1, dealer North, nobody vulnerable: EW make 2S, -110 for North-South.
    result = par(tables[DDS_HAND_1], Board(1, 0, "None"))
    assert result.score == -110
    assert [c.text for c in result.contracts] == ["2S by opp1", "2S by opp2"]
    # Deal 3: NS sacrifice in 5H doubled, two down: -300.
    result = par(tables[DDS_HAND_3], Board(1, 0, "None"))
    assert result.score == -300
    assert result.contracts == (
        ParContract(5, "H", True, Role.OPENER, -2),
        ParContract(5, "H", True, Role.RESPONDER, -2),
    )


@pytest.mark.parametrize(
    "vulnerable, roles, score, contract",
    [
        # EW make 4S (10 tricks); NS take 9 in hearts, so 5H doubled is two down. By hand:
        ("None", [], -300, "5Hx-2 by opener"),  # 300 beats 420
        ("NS", ["opener", "responder"], -420, "4S by opp1"),  # 500 vulnerable is worse than 420
        ("EW", ["opp1", "opp2"], -300, "5Hx-2 by opener"),  # 300 beats 620
        ("All", ["opener", "responder", "opp1", "opp2"], -500, "5Hx-2 by opener"),  # 500 beats 620
    ],
)
def test_par_on_the_four_vulnerabilities(tables, vulnerable, roles, score, contract):
    result = par(tables[DDS_HAND_3], Board(1, 0, vulnerable))
    assert result.to_json()["vulnerable"] == roles
    assert result.score == score
    assert contract in result.to_json()["contracts"]


def test_par_follows_the_opener_to_the_dealer_seat(tables):
    # Board 2: East deals and NS are vulnerable, so the opener's side (East-West now) is not:
    # the same as the opener North on a board where only EW are vulnerable.
    assert par(tables[DDS_HAND_3], board(2)) == par(tables[DDS_HAND_3], Board(1, 0, "EW"))


def test_pbn_tags_in_the_boards_orientation(tables):
    table = tables[DDS_HAND_3]
    tags = pbn_tags(table, board(2))  # the opener sits East: North-South are the opponents
    assert tags[0] == PbnTag("OptimumScore", "NS 300")
    assert tags[1] == PbnTag("ParContract", "EW 5Hx-2")
    assert (tags[2].name, tags[2].value, tags[2].verbatim) == ("OptimumResultTable", "Declarer;Denomination\\2R;Result\\2R", True)
    rows = list(tags[2].rows)
    assert len(tags) == 3 and len(rows) == 20
    assert rows[:5] == ["N NT  8", "N  S 10", "N  H  4", "N  D  4", "N  C  9"]  # opp2 sits North
    assert rows[10:15] == ["E NT  4", "E  S  3", "E  H  9", "E  D  8", "E  C  3"]  # the opener
    on_board_1 = pbn_tags(table, board(1))
    assert on_board_1[0] == PbnTag("OptimumScore", "NS -300") and on_board_1[1] == PbnTag("ParContract", "NS 5Hx-2")


def test_a_board_of_unknown_vulnerability_gets_the_table_only(tables):
    tags = pbn_tags(tables[DDS_HAND_1], Board(1, 0, "?"))
    assert [t.name for t in tags] == ["OptimumResultTable"] and len(tags[0].rows) == 20


def test_the_summary_counts_games_and_slams_for_the_openers_side(tables):
    top = tables[TOP_CARDS]
    assert summary([top, tables[DDS_HAND_1], None]) == Summary(deals=3, analysed=2, game=1, slam=1)
    # Deal 3: the opener's side takes 9 tricks in hearts, no game; with 9 in NT it would be one.
    assert summary([tables[DDS_HAND_3]]) == Summary(1, 1, 0, 0)
    assert summary([None]) == Summary(1, 0, 0, 0)


def test_a_table_outside_its_bounds_is_refused():
    with pytest.raises(ValueError):
        DDTable((14,) * 20)
    with pytest.raises(ValueError):
        DDTable.from_text("abc")


#: The opener's side runs spades and diamonds, opp1's side hearts and clubs, and the side on
#: lead never gets in: in notrump each side takes all 13 tricks when the other leads.
BOTH_SIDES_13_IN_NT = "N:AKQJT98..AKQJT9. 765432..8765432. .765432..8765432 .AKQJT98..AKQJT9"


def test_13_tricks_for_both_sides_is_kept_in_notrump_and_refused_in_a_suit():
    (table,) = solve([BOTH_SIDES_13_IN_NT])
    assert table is not None
    assert {role: table.of(role, "NT") for role in Role} == {
        Role.OPENER: 13, Role.OPP1: 13, Role.RESPONDER: 0, Role.OPP2: 0
    }
    assert DDTable.from_text(table.text) == table
    with pytest.raises(ValueError, match="impossible double-dummy table: in S"):
        DDTable(_with(table, "S", {Role.OPENER: 13, Role.OPP1: 13}))


def _with(table: DDTable, strain: str, tricks: dict[Role, int]) -> tuple[int, ...]:
    """`table`'s tricks with those of some roles in one strain changed."""
    return tuple(
        tricks.get(role, table.of(role, s)) if s == strain else table.of(role, s) for role in Role for s in STRAINS
    )


def _table(by_role: dict[Role, str]) -> tuple[int, ...]:
    """Tricks from one string of 5 hexadecimal digits (NT S H D C) per role."""
    return tuple(int(by_role[role][i], 16) for role in Role for i in range(5))


@pytest.mark.parametrize(
    "by_role",
    [
        # 13 tricks for both sides in spades: the side without the ace of spades took them all.
        {Role.OPENER: "8d888", Role.RESPONDER: "88888", Role.OPP1: "8d888", Role.OPP2: "85888"},
        # 13 for one declarer of a side, none for its other one: who holds the ace of hearts?
        {Role.OPENER: "88d88", Role.RESPONDER: "88088", Role.OPP1: "85088", Role.OPP2: "85088"},
        # No trick in clubs for the opener, nor for opp2.
        {Role.OPENER: "88880", Role.RESPONDER: "88888", Role.OPP1: "55555", Role.OPP2: "55550"},
    ],
    ids=["13-for-both-in-spades", "13-and-0-for-one-side", "no-trick-for-either"],
)
def test_a_table_that_breaks_the_ace_of_trumps_rule_is_refused(by_role):
    with pytest.raises(ValueError, match="impossible double-dummy table"):
        DDTable(_table(by_role))


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.permutations([seat for seat in range(4) for _ in range(13)]), st.sampled_from("SHDC"))
def test_every_table_dds_makes_obeys_the_rules_and_no_trick_for_either_side_breaks_them(owner, strain):
    (table,) = solve([_pbn(owner)])
    assert table is not None
    with pytest.raises(ValueError, match=f"impossible double-dummy table: in {strain}"):
        DDTable(_with(table, strain, {Role.OPENER: 0, Role.OPP2: 0}))


def test_a_deal_dds_cannot_take_comes_back_as_none(tables, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # DDS writes dump.txt where it runs for a deal it refuses
    bad = "N:AKQJT98765432... ... ... ..."  # not 13 cards each
    assert solve([TOP_CARDS, bad]) == [tables[TOP_CARDS], None]
    assert list(tmp_path.iterdir()) == []  # refused before DDS saw it


# --- properties: the same deal seen another way gives the same table, moved ---------------

_CARDS = [s + r for s in "SHDC" for r in RANK_LETTERS]


def _pbn(owner: list[int]) -> str:
    hands = []
    for seat in range(4):
        suits = [
            "".join(r for r in RANK_LETTERS if owner[_CARDS.index(s + r)] == seat) for s in "SHDC"
        ]
        hands.append(".".join(suits))
    return "N:" + " ".join(hands)


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.permutations([seat for seat in range(4) for _ in range(13)]))
def test_turning_the_deal_and_swapping_suits_moves_the_table(owner):
    deal = _pbn(owner)
    turned = _pbn([(seat + 1) % 4 for seat in owner])  # every hand one seat clockwise
    swapped = _pbn([owner[_CARDS.index({"S": "H", "H": "S"}.get(c[0], c[0]) + c[1])] for c in _CARDS])
    table, table_turned, table_swapped = solve([deal, turned, swapped])
    # North's hand is East's in `turned`: the opener's row becomes opp1's, and so on round.
    after = {Role.OPENER: Role.OPP1, Role.OPP1: Role.RESPONDER, Role.RESPONDER: Role.OPP2, Role.OPP2: Role.OPENER}
    for role in Role:
        for strain in STRAINS:
            assert table_turned.of(after[role], strain) == table.of(role, strain)
            other = {"S": "H", "H": "S"}.get(strain, strain)
            assert table_swapped.of(role, other) == table.of(role, strain)
            # Declarer's tricks and the defence's add up to 13 whoever declares.
            assert 0 <= table.of(role, strain) <= 13


# --- the state store -----------------------------------------------------------------------


def test_tables_are_kept_by_deal_and_forgotten_when_unpublished(tmp_path, tables):
    with StateStore(tmp_path / "s.sqlite") as store:
        kept = DDTables(store)
        kept.add({DDS_HAND_1: tables[DDS_HAND_1], DDS_HAND_3: tables[DDS_HAND_3]})
    with StateStore(tmp_path / "s.sqlite") as store:
        kept = DDTables(store)
        assert kept.find([DDS_HAND_1, TOP_CARDS]) == {DDS_HAND_1: tables[DDS_HAND_1]}
        kept.keep_only([DDS_HAND_3])
        assert kept.find([DDS_HAND_1, DDS_HAND_3]) == {DDS_HAND_3: tables[DDS_HAND_3]}


#: Rows no table can be read from: not 20 hexadecimal digits, a number, bytes, text that is
#: not UTF-8 (in the table, in the deal), and tables that cannot be (13 tricks for both sides
#: in spades; no trick in hearts for the opener, nor for opp1).
DAMAGED_ROWS = [
    (DDS_HAND_1, "not a table"),
    (DDS_HAND_1, "+" + "1" * 19),
    (DDS_HAND_1, 2**63 - 1),
    (DDS_HAND_1, b"\x00" * 20),
    (DDS_HAND_1, "d" * 20),
    (DDS_HAND_1, "85088" + "95555" + "60000" + "70000"),
]


@pytest.mark.parametrize("row", DAMAGED_ROWS, ids=range(len(DAMAGED_ROWS)))
def test_a_damaged_table_row_is_dropped_with_one_warning(tmp_path, tables, row, caplog):
    with StateStore(tmp_path / "s.sqlite") as store:
        kept = DDTables(store)
        kept.add({DDS_HAND_3: tables[DDS_HAND_3]})
        with store.transaction() as db:
            db.execute("INSERT INTO dd_tables VALUES (?, ?)", row)
        with caplog.at_level("WARNING"):
            assert kept.find([DDS_HAND_1, DDS_HAND_3]) == {DDS_HAND_3: tables[DDS_HAND_3]}
        assert [r.levelname for r in caplog.records] == ["WARNING"]
        assert "1 damaged table(s) dropped" in caplog.text and "solved again" in caplog.text
        caplog.clear()
        assert kept.find([DDS_HAND_1, DDS_HAND_3]) == {DDS_HAND_3: tables[DDS_HAND_3]}
        assert caplog.records == []  # dropped, not met again
        kept.add({DDS_HAND_1: tables[DDS_HAND_1]})  # solved again, it is kept as any other
        assert kept.find([DDS_HAND_1]) == {DDS_HAND_1: tables[DDS_HAND_1]}


def test_a_deal_that_is_not_utf8_is_a_damaged_row_too(tmp_path, tables, caplog):
    with StateStore(tmp_path / "s.sqlite") as store:
        kept = DDTables(store)
        kept.add({DDS_HAND_3: tables[DDS_HAND_3]})
        with store.transaction() as db:
            db.execute("INSERT INTO dd_tables VALUES (CAST(? AS TEXT), ?)", (b"N:\xff\xfe", tables[DDS_HAND_1].text))
        with caplog.at_level("WARNING"):
            assert kept.find([DDS_HAND_3]) == {DDS_HAND_3: tables[DDS_HAND_3]}
        assert "1 damaged table(s) dropped" in caplog.text
        rows = store.connection.execute("SELECT count(*) FROM dd_tables").fetchone()[0]
        assert rows == 1


def test_a_damaged_state_file_is_still_a_state_error(tmp_path):
    with StateStore(tmp_path / "s.sqlite") as store:
        kept = DDTables(store)
        store.connection.execute("DROP TABLE dd_tables")
        with pytest.raises(StateError):
            kept.find([DDS_HAND_1])


# --- the deals command ---------------------------------------------------------------------

TWO_SCENARIOS = "opener hcp:20-21 shape:balanced // opener S:6+ hcp:5-10"


def test_deals_command_adds_tables_and_par_to_json_and_pbn(monkeypatch):
    from support.cli import run

    from bridgeshape_mirror.deals.boards.pbn import iter_deal_strings

    code, out, _ = run(monkeypatch, TWO_SCENARIOS, "--count", "2", "--dd")
    assert code == 0
    doc = json.loads(out)
    deals = [d for s in doc["scenarios"] for d in s["deals"]]
    tables = solve([d["pbn"] for d in deals])
    for deal, table in zip(deals, tables):
        assert deal["dd"] == table.to_json()
        assert deal["par"] == par(table, board(deal["board"])).to_json()  # each deal on its own board
    # The same deals as without --dd (it changes what is written, not what is dealt).
    _, plain, _ = run(monkeypatch, TWO_SCENARIOS, "--count", "2")
    assert [d["pbn"] for s in json.loads(plain)["scenarios"] for d in s["deals"]] == [d["pbn"] for d in deals]
    code, pbn, _ = run(monkeypatch, TWO_SCENARIOS, "--count", "2", "--dd", "--format", "pbn")
    text = pbn.decode("utf-8")
    by_board = sorted(zip(deals, tables), key=lambda pair: pair[0]["board"])
    assert code == 0 and list(iter_deal_strings(text)) == [d["board_pbn"] for d, _ in by_board]
    assert text.count(RESULT_TABLE_TAG + "\r\n") == 4
    games = text.split("\r\n\r\n")
    for game, (deal, table) in zip(games, by_board):
        # The rows in the board's orientation: the opener at the dealer's seat.
        opener_seat, opp2_seat = deal["dealer"], "NESW"[("NESW".index(deal["dealer"]) + 3) % 4]
        assert f"{opener_seat} NT {table.of(Role.OPENER, 'NT'):>2}\r\n" in game
        assert f"{opp2_seat}  C {table.of(Role.OPP2, 'C'):>2}\r\n" in game
        assert '[OptimumScore "NS ' in game and "[ParContract " in game


def _fake_table(pbn: str) -> DDTable:
    # 1 to 12 tricks everywhere obeys every table's rules; each deal its own.
    import hashlib

    return DDTable(tuple(1 + b % 12 for b in hashlib.sha256(pbn.encode()).digest()[:20]))


def test_every_streamed_deal_gets_its_own_table_past_the_window_of_held_batches(monkeypatch):
    import bridgeshape_mirror.deals.double_dummy as dd
    from support.cli import run

    batches: list[int] = []

    def fake_solve(pbns):
        batches.append(len(pbns))
        return [_fake_table(pbn) for pbn in pbns]

    monkeypatch.setattr(dd, "solve", fake_solve)
    code, out, _ = run(monkeypatch, TWO_SCENARIOS, "--count", "150", "--dd")
    assert code == 0
    deals = [d for s in json.loads(out)["scenarios"] for d in s["deals"]]
    assert len(deals) == 300 and len(batches) > 8  # more batches than the two streams' window holds
    assert max(batches) == 40 and batches[0] == 4
    for deal in deals:
        table = _fake_table(deal["pbn"])
        assert deal["dd"] == table.to_json() and deal["par"] == par(table, board(deal["board"])).to_json()


def _deals_command(*argv: str) -> list[str]:
    import sys

    return [sys.executable, "-c", "import sys\nfrom bridgeshape_mirror.cli import main\nsys.exit(main(sys.argv[1:]))", "deals", *argv]


def test_deals_with_tables_are_written_as_they_are_solved(tmp_path):
    import select
    import subprocess
    import time

    # Far more deals than the test waits for: the first boards come while DDS works on the rest.
    run = subprocess.Popen(_deals_command(TWO_SCENARIOS, "--dd", "--count", "2000", "--format", "pbn"), stdout=subprocess.PIPE, cwd=tmp_path)
    try:
        text, deadline = b"", time.monotonic() + 60  # minutes, were all the deals held to the end
        while text.count(b"[OptimumResultTable ") < 2 or not text.endswith(b"\r\n"):
            assert select.select([run.stdout], [], [], max(0.0, deadline - time.monotonic()))[0], "no boards within a minute"
            more = run.stdout.read1(65536)
            assert more, "the command ended before its first boards"
            text += more
        assert run.poll() is None  # still solving
    finally:
        run.kill()
        run.wait()
    first = text.decode("ascii").split("\r\n\r\n")[0]
    assert '[Board "1"]' in first and "[OptimumScore " in first and first.count("\r\nN ") == 5


def test_the_progress_bar_is_drawn_on_a_terminal_only(tmp_path):
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import termios

    piped = subprocess.run(_deals_command(TWO_SCENARIOS, "--dd", "--count", "3", "--format", "pbn"), capture_output=True, cwd=tmp_path)
    assert piped.returncode == 0 and piped.stderr == b""
    assert piped.stdout.count(b"[OptimumResultTable ") == 6
    terminal, other_end = pty.openpty()
    fcntl.ioctl(other_end, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a new one has 0 columns
    with subprocess.Popen(_deals_command(TWO_SCENARIOS, "--dd", "--count", "3", "--format", "json"), stdout=subprocess.DEVNULL, stderr=other_end, cwd=tmp_path) as run:
        os.close(other_end)
        drawn = b""
        while True:
            try:
                more = os.read(terminal, 4096)
            except OSError:  # the command closed its end
                break
            if not more:
                break
            drawn += more
    os.close(terminal)
    assert run.returncode == 0
    assert b"double dummy: 100%" in drawn and b"6/6" in drawn
