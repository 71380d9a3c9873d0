"""Cards, hands, deals and PBN strings/files."""

from __future__ import annotations

import io
import random

import numpy as np
import pytest

from bridgeshape_mirror.deals.boards.board import board
from bridgeshape_mirror.deals.boards.cards import Card, Deal, Hand
from bridgeshape_mirror.deals.boards.pbn import (
    MANDATORY_TAGS,
    PbnError,
    PbnExportWriter,
    PbnGame,
    PbnTag,
    format_many,
    format_rows,
    iter_deal_strings,
    parse_deal,
)

SAMPLE = "N:AKQ.T98.765.5432 JT9.AKQ.432.KQJT 8765.J765.AKQ.A9 432.432.JT98.876"


def random_owner(seed: int, n: int) -> np.ndarray:
    gen = random.Random(seed)
    rows = []
    for _ in range(n):
        seats = [s for s in range(4) for _ in range(13)]
        gen.shuffle(seats)
        rows.append(seats)
    return np.array(rows, dtype=np.int8)


def test_card_numbering_and_hcp():
    assert Card.parse("SA").id == 0 and Card.parse("C2").id == 51
    assert [Card.parse(t).hcp for t in ("HA", "HK", "HQ", "HJ", "HT", "H2")] == [4, 3, 2, 1, 0, 0]
    assert str(Card.from_id(13 + 4)) == "HT"
    with pytest.raises(ValueError):
        Card.parse("H10")


def test_parse_and_format_round_trip():
    deal = parse_deal(SAMPLE)
    assert deal.is_legal
    assert deal.pbn() == SAMPLE
    north = deal.hand(0)
    assert north.lengths == (3, 3, 3, 4) and north.hcp == 9
    assert deal.hand(1).suit_hcp(1) == 9


def test_parse_other_first_seat_and_void():
    deal = parse_deal("E:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432")
    assert deal.hand(1).lengths == (13, 0, 0, 0)
    assert deal.hand(0).lengths == (0, 0, 0, 13)  # North is the fourth hand from East
    assert deal.pbn().startswith("N:...AKQJT98765432 AKQJT98765432...")
    assert deal.pbn(first=1).startswith("E:AKQJT98765432...")


@pytest.mark.parametrize(
    "bad",
    [
        "X:AKQ.T98.765.5432 JT9.AKQ.432.KQJT 8765.J765.AKQ.A9 432.432.JT98.876",
        "N:AKQ.T98.765.5432 JT9.AKQ.432.KQJT 8765.J765.AKQ.A9",
        "N:AKQ.T98.765.5432 JT9.AKQ.432.KQJT 8765.J765.AKQ.A9 432.432.JT98.87",
        "N:AKQ.T98.765.5432 AT9.AKQ.432.KQJT 8765.J765.AKQ.A9 432.432.JT98.876",
        "N:AKQ.T98.765.5431 JT9.AKQ.432.KQJT 8765.J765.AKQ.A9 432.432.JT98.876",
        "N:AAQ.T98.765.5432 JT9.AKQ.432.KQJT 8765.J765.AKQ.A9 432.432.JT98.876",
    ],
)
def test_bad_pbn_is_rejected(bad):
    with pytest.raises(PbnError):
        parse_deal(bad)


def test_bulk_formatting_matches_deal_objects():
    owner = random_owner(7, 200)
    strings = format_many(owner)
    for row, text in zip(owner.tolist(), strings):
        deal = Deal.from_seat_of_card(row)
        assert deal.pbn() == text
        assert parse_deal(text).seat_of_card() == row
        assert len(text) == 69


def test_bulk_formatting_of_voids_and_whole_suits():
    # Each seat's cards all in one suit (in several seat orders), or spread over every suit:
    # the running counts per seat cross every suit boundary in every seat's block.
    suits = np.repeat(np.arange(4), 13)
    rows = [suits, suits[::-1], (suits + 1) % 4, np.tile(np.arange(4), 13), np.array([(k % 13 + k // 13) % 4 for k in range(52)])]
    owner = np.array(rows + random_owner(11, 40).tolist(), dtype=np.int64)
    for row, text in zip(owner.tolist(), format_many(owner)):
        assert text == Deal.from_seat_of_card(row).pbn()


@pytest.mark.parametrize("seat", [256, -256, 260])
def test_bulk_formatting_refuses_seats_a_byte_would_wrap(seat):
    owner = random_owner(5, 2).astype(np.int64)
    owner[0, 7] = seat
    with pytest.raises(PbnError):
        format_rows(owner)


def test_bulk_formatting_refuses_partial_deals():
    owner = random_owner(1, 2)
    owner[0, 0] = owner[0, 1] = 0 if owner[0, 0] != 0 else 1
    with pytest.raises(PbnError):
        format_rows(owner)


@pytest.mark.parametrize("seat", [-1, 4])
def test_bulk_formatting_refuses_seats_outside_the_four(seat):
    owner = random_owner(3, 3)
    owner[1, 5] = seat
    with pytest.raises(PbnError):
        format_rows(owner)


def test_hand_object():
    hand = Hand(frozenset(Card.parse(t) for t in ("SA", "SK", "H2", "D5")))
    assert hand.pbn() == "AK.2.5." and hand.hcp == 7 and len(hand) == 4


def test_export_writer_has_mandatory_tags_in_order_and_crlf():
    out = io.StringIO()
    writer = PbnExportWriter(out)
    for number in (1, 2):
        writer.write_game(PbnGame(board(number), board(number).turn(SAMPLE), "Splinter", "Splinter {1H-4C}"))
    text = out.getvalue()
    assert text.startswith("% PBN 2.1\r\n% EXPORT\r\n[Event ")
    assert "\n" not in text.replace("\r\n", "")
    games = text.split("\r\n\r\n")
    assert len(games) == 2
    for number, game in enumerate(games, start=1):
        tags = [line[1:].split(" ", 1)[0] for line in game.split("\r\n") if line.startswith("[")]
        assert tuple(tags) == MANDATORY_TAGS
        assert f'[Board "{number}"]' in game and f'[Dealer "{"NE"[number - 1]}"]' in game
        assert f'[Vulnerable "{("None", "NS")[number - 1]}"]' in game
        assert "{Splinter (1H-4C)}" in game
    assert list(iter_deal_strings(text)) == [SAMPLE, "E" + SAMPLE[1:]]


def test_export_writer_lines_are_ascii_and_short_and_extra_tags_follow_the_mandatory_ones():
    out = io.StringIO()
    title = "Perché 1♥–(2♣) " + "x\\" * 200
    tags = (PbnTag("OptimumResultTable", "Declarer;Denomination\\2R;Result\\2R", ("N NT 9", "N S 10")),)
    PbnExportWriter(out).write_game(PbnGame(board(3), board(3).turn(SAMPLE), title, "label " * 100, tags))
    lines = out.getvalue().split("\r\n")
    assert out.getvalue().isascii() and all(len(line) <= 255 for line in lines)
    assert lines[2].startswith('[Event "Perche 1H-(2C) x\\\\x') and lines[2].endswith('..."]')
    names = [line[1:].split(" ", 1)[0] for line in lines if line.startswith("[")]
    assert names == list(MANDATORY_TAGS) + ["OptimumResultTable"]
    table = lines.index('[OptimumResultTable "Declarer;Denomination\\\\2R;Result\\\\2R"]')
    assert lines[table + 1 : table + 3] == ["N NT 9", "N S 10"] and lines[table + 3].startswith("{label")
    with pytest.raises(ValueError):
        PbnExportWriter(out).write_game(PbnGame(board(1), SAMPLE, tags=(PbnTag("Dealer", "S"),)))


def test_export_writer_games_in_turn_are_their_tags_escaped_one_by_one():
    """Games sharing an event, comment and tags reuse one text around their board and deal
    (`PbnExportWriter.write_game`): each game still reads as its sixteen tags escaped one by
    one, with a deal or a vulnerability that needs escaping, and boards past 16 and 99."""
    from bridgeshape_mirror.deals.boards.board import Board
    from bridgeshape_mirror.deals.boards.pbn import CRLF, tag_line

    def alone(game: PbnGame, site: str = "?") -> str:
        b = game.board
        # What PBN 2.1 asks of a dealing program: the game's tags empty, a date not known.
        values = dict.fromkeys(MANDATORY_TAGS, "")
        values.update(Date="????.??.??", Event=game.event, Site=site, Board=str(b.number), Dealer=b.dealer_letter, Vulnerable=b.vulnerable, Deal=game.deal)
        lines = [tag_line(name, values[name]) for name in MANDATORY_TAGS] + [tag_line(t.name, t.value) for t in game.tags]
        return CRLF.join(lines + ([f"{{{game.comment}}}"] if game.comment else [])) + CRLF

    generator = (PbnTag("Generator", "tool (seed 1, scenario 2)"),)
    games = [
        PbnGame(board(n), board(n).turn(SAMPLE), f"scenario {1 + n % 2}", f"scenario {1 + n % 2}", generator)
        for n in (1, 2, 3, 17, 100, 101)
    ]
    games.insert(3, PbnGame(board(5), 'N:"quoted" \\', "scenario 2", "scenario 2", generator))
    games.insert(5, PbnGame(Board(6, 1, "N" * 300), SAMPLE, "scenario 1", None))
    out = io.StringIO()
    writer = PbnExportWriter(out, site="club")
    for game in games:
        writer.write_game(game)
    assert out.getvalue() == "% PBN 2.1\r\n% EXPORT\r\n" + CRLF.join(alone(g, "club") for g in games)
    assert '[Deal "N:\\"quoted\\" \\\\"]' in out.getvalue() and '[Board "101"]' in out.getvalue()
