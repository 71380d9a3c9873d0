"""Golden export files (issue 11): a PBN and a LIN file of the `deals` command, byte for byte,
so a change to what bridge tools read is seen in review. The tool's version in `[Generator]`
is written `{VERSION}` in the golden file. Regenerate with BSM_UPDATE_GOLDEN=1 only after
reviewing the difference (and checking the new file in endplay and BBO's viewer)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bridgeshape_mirror.store.version import VERSION
from support.cli import run

GOLDEN = Path(__file__).resolve().parent / "golden" / "exports"
#: Two scenarios, one of them labelled with suit symbols and a quote, so the board turn, the
#: interleaving, the ASCII spelling and the escapes are all in the files.
DSL = (
    "1H-4C: opener H:5+ hcp:12-21; responder H:4+ C:0-1 Chcp:0 hcp:10-15 // "
    '1♠ "forte": opener S:5+ hcp:16+; opp1 hcp:0-7'
)


@pytest.mark.parametrize("name", ["pbn", "lin"])
def test_the_export_is_the_golden_file(monkeypatch, name):
    code, out, _ = run(monkeypatch, DSL, "--count", "5", "--seed", "11", "--format", name)
    assert code == 0
    text = out.decode("ascii").replace(f"bridgeshape-mirror {VERSION} ", "bridgeshape-mirror {VERSION} ")
    golden = GOLDEN / f"two-scenarios.{name}"
    if os.environ.get("BSM_UPDATE_GOLDEN"):
        golden.write_bytes(text.encode("ascii"))
    assert text == golden.read_bytes().decode("ascii")


def test_the_golden_files_load_in_endplay_with_the_same_boards():
    from endplay.parsers import lin, pbn

    pbn_boards = pbn.loads((GOLDEN / "two-scenarios.pbn").read_bytes().decode("ascii"))
    lin_boards = lin.loads((GOLDEN / "two-scenarios.lin").read_bytes().decode("ascii"))
    assert len(pbn_boards) == len(lin_boards) == 10
    for p, l in zip(pbn_boards, lin_boards):
        assert (p.board_num, p.dealer, p.vul, p.deal.to_pbn()) == (l.board_num, l.dealer, l.vul, l.deal.to_pbn())
