"""PBN 2.1's export format (issue 31), checked by a reader written here from the standard's
text (section 3.4, "Identification section"), not from our writer: the 15 mandatory tags in
their fixed order, then the supplemental tags sorted alphabetically by name; a mandatory value
a dealing program has no game for given as an empty string (`?` is for a value not known);
the date in its ten-character format `YYYY.MM.DD`, `?` for a digit not known; and text outside
ASCII transliterated, never turned into `?`.
"""

from __future__ import annotations

import io
import re
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from bridgeshape_mirror.deals.boards.board import board
from bridgeshape_mirror.deals.boards.pbn import PbnExportWriter, PbnGame, PbnTag, pbn_text
from support.cli import run

#: The Mandatory Tag Set, in the order section 3.4 lists it.
STANDARD_MTS = (
    "Event", "Site", "Date", "Board", "West", "North", "East", "South",
    "Dealer", "Vulnerable", "Deal", "Scoring", "Declarer", "Contract", "Result",
)  # fmt: skip
#: What the standard's example of a dealing program gives: these three, the rest inappropriate.
DEALT = {"Dealer", "Vulnerable", "Deal"}
#: Section 3.4.3: ten characters, digits or question marks, periods between.
DATE = re.compile(r"(\d{4}|\?{4})\.(\d\d|\?\?)\.(\d\d|\?\?)")
TAG = re.compile(r'\[(\w+) "((?:[^"\\]|\\.)*)"\]')
SAMPLE = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"


def games(text: str) -> list[list[tuple[str, str]]]:
    """Each game's tags (name, unescaped value) in file order; a game ends at an empty line."""
    assert text.startswith("% PBN 2.1\r\n% EXPORT\r\n")
    body = text.split("\r\n", 2)[2]
    found = []
    for block in body.split("\r\n\r\n"):
        tags = [(m.group(1), re.sub(r"\\(.)", r"\1", m.group(2))) for line in block.split("\r\n") if (m := TAG.fullmatch(line))]
        if tags:
            found.append(tags)
    return found


def check_export_order(tags: list[tuple[str, str]]) -> None:
    names = [name for name, _ in tags]
    assert names[: len(STANDARD_MTS)] == list(STANDARD_MTS)
    supplemental = names[len(STANDARD_MTS) :]
    assert supplemental == sorted(supplemental)
    assert len(set(names)) == len(names)  # "tag pairs may only occur once"
    values = dict(tags)
    assert DATE.fullmatch(values["Date"])
    for name in ("West", "North", "East", "South", "Scoring", "Declarer", "Contract", "Result"):
        assert values[name] == "", name  # inappropriate for a dealing program, not unknown


def test_the_deals_command_writes_export_format(monkeypatch):
    dsl = 'opener H:5+ hcp:12-21 // «puppet» – Perché 1♠: opener S:5+ hcp:16+'
    code, out, _ = run(monkeypatch, dsl, "--count", "3", "--seed", "2", "--format", "pbn")
    assert code == 0
    text = out.decode("ascii")
    found = games(text)
    assert len(found) == 6
    for tags in found:
        check_export_order(tags)
    events = {dict(tags)["Event"] for tags in found}
    assert "<<puppet>> - Perche 1S" in events, events
    assert "?" not in "".join(events)


def test_supplemental_tags_follow_sorted_by_name_with_their_rows():
    tags = (
        PbnTag("ParContract", "NS 4H"),
        PbnTag("Generator", "tool"),
        PbnTag("OptimumScore", "NS 420"),
        PbnTag("OptimumResultTable", "Declarer;Denomination\\2R;Result\\2R", ("N NT 9", "N  S 10"), verbatim=True),
    )
    out = io.StringIO()
    PbnExportWriter(out).write_game(PbnGame(board(1), SAMPLE, "event", None, tags))
    (found,) = games(out.getvalue())
    check_export_order(found)
    assert [name for name, _ in found[len(STANDARD_MTS) :]] == ["Generator", "OptimumResultTable", "OptimumScore", "ParContract"]
    lines = out.getvalue().split("\r\n")
    table = next(i for i, line in enumerate(lines) if line.startswith("[OptimumResultTable"))
    assert lines[table + 1 : table + 3] == ["N NT 9", "N  S 10"]  # the table's rows stay under it


def test_a_site_given_is_written_and_none_is_empty():
    for site, written in (("club", "club"), (None, "")):
        out = io.StringIO()
        writer = PbnExportWriter(out) if site is None else PbnExportWriter(out, site=site)
        writer.write_game(PbnGame(board(2), board(2).turn(SAMPLE), "e"))
        assert dict(games(out.getvalue())[0])["Site"] == written


def test_transliteration_keeps_letters_and_symbols_never_question_marks():
    assert pbn_text("«puppet»") == "<<puppet>>"
    assert pbn_text("Perché Über smørrebrød") == "Perche Uber smorrebrod"
    assert pbn_text("1♥–(2♣) → 3♠ “x”") == '1H-(2C) -> 3S "x"'
    assert pbn_text("a\nb\tc") == "a b c"


def _not_a_question_mark(c: str) -> bool:
    return "QUESTION" not in unicodedata.name(c, "")


@given(st.text(st.characters(exclude_categories=("Cs",)).filter(_not_a_question_mark), max_size=40))
def test_transliteration_is_ascii_without_control_characters_or_question_marks(text):
    """The old spelling turned every character it could not decompose into `?`; a `?` now
    comes only from a question mark (`?`, `¿`, `？`...), which this text has none of."""
    plain = pbn_text(text)
    assert plain.isascii() and not re.search(r"[\x00-\x1f\x7f]", plain)
    assert "?" not in plain
