"""The sample mirror's boards as bridge tools read them (issue 11): every PBN and LIN file
loads in endplay with every board, dealer and vulnerability follow the board rotation, the opener's
hand is at the dealer's seat and satisfies the opener's constraints, and the PBN and JSON
files hold the same deals."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from endplay.parsers import lin as endplay_lin
from endplay.parsers import pbn as endplay_pbn
from endplay.types import Player, Vul

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.boards.pbn import MANDATORY_TAGS, parse_deal
from bridgeshape_mirror.deals.rules.predicate import satisfies
from bridgeshape_mirror.dsl.model import Scenario
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.store.state import StateStore
from bridgeshape_mirror.store.version import VERSION
from bridgeshape_mirror.sync.dump import sync_from_dump
from bridgeshape_mirror.sync.syncer import SyncSettings

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "sample-wiki.xml"
# The standard cycle, written out as hand records print it (independently of deals.boards.board).
DEALERS = "NESW"
VULNERABLE = "None NS EW All NS EW All None EW All None NS All None NS EW".split()
ENDPLAY_VUL = {"None": Vul.none, "NS": Vul.ns, "EW": Vul.ew, "All": Vul.both}


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    base = tmp_path_factory.mktemp("boards")
    state = base / "state.sqlite"
    with StateStore(state) as store:
        sync_from_dump(SAMPLE, store, SyncSettings())
    build(state, BuildSettings(out=base / "output", deals=5, dd_budget=0))
    out = (base / "output").resolve()
    pages = {}
    for path in sorted((out / "api/deals").glob("*.json")):
        deals = json.loads(path.read_text(encoding="utf-8"))
        get = json.loads((out / f"api/get/pageid/{deals['pageId']}.json").read_text(encoding="utf-8"))
        pages[deals["pageId"]] = (deals, dsl.parse_scenarios(get["shapeconstraints"]["raw"]))
    return out, pages


def _json_boards(deals: dict) -> dict[int, tuple[int, str, dict]]:
    return {d["board"]: (s["index"], s["label"], d) for s in deals["scenarios"] for d in s["deals"]}


def _opener_north(board) -> str:
    """endplay's deal of a board, back in the JSON's orientation: the dealer's hand first."""
    seats = [Player.find(letter) for letter in DEALERS]
    start = seats.index(board.dealer)
    hands = [board.deal[seats[(start + i) % 4]].to_pbn() for i in range(4)]
    return "N:" + " ".join(hands)


def test_endplay_reads_every_board_of_every_pbn_file(sample):
    out, pages = sample
    total = 0
    for page_id, (deals, scenarios) in pages.items():
        text = (out / f"deals/{page_id}.pbn").read_bytes().decode("ascii")
        boards = endplay_pbn.loads(text)
        json_boards = _json_boards(deals)
        assert len(boards) == len(json_boards) > 0
        for number, board in enumerate(boards, start=1):
            index, label, deal = json_boards[number]
            assert board.board_num == number
            assert board.dealer == Player.find(DEALERS[(number - 1) % 4]) and deal["dealer"] == DEALERS[(number - 1) % 4]
            assert board.vul == ENDPLAY_VUL[VULNERABLE[(number - 1) % 16]] and deal["vulnerable"] == VULNERABLE[(number - 1) % 16]
            # The same deal as the JSON's, turned so that the opener deals.
            assert parse_deal(board.deal.to_pbn()) == parse_deal(deal["board_pbn"])
            assert _opener_north(board) == deal["pbn"]
            scenario = scenarios[index - 1]
            assert satisfies(parse_deal(_opener_north(board)), scenario)
            opener = scenario.position(dsl.model.Role.OPENER)
            if opener is not None:
                # The dealer's hand, alone, satisfies the opener's constraints (without the
                # pair's fits a wildcard has more candidates: never fewer deals).
                dealer_hand = board.deal[board.dealer].to_pbn()
                assert _opener_north(board).startswith("N:" + dealer_hand + " ")
                assert satisfies(parse_deal(_opener_north(board)), Scenario(positions=(opener,)))
            assert board.info["Event"] == deal_event(deals["title"], index, label)
            assert board.info["Generator"] == f"bridgeshape-mirror {VERSION} (seed 0, page {page_id}, revision {deals['revid']}, scenario {index})"
        total += len(boards)
    assert total == sum(len(s["deals"]) for deals, _ in pages.values() for s in deals["scenarios"]) > 100


def deal_event(title: str, index: int, label: str) -> str:
    # endplay keeps the tag's text as written: the title in ASCII, escapes as they are.
    from bridgeshape_mirror.deals.boards.pbn import pbn_text

    text = pbn_text(f"{title} - {label or f'scenario {index}'}")
    return text.replace("\\", "\\\\").replace('"', '\\"')


def test_boards_take_the_scenarios_in_turn(sample):
    _, pages = sample
    deals, scenarios = pages[42]  # Splinter: six scenarios, five deals each
    order = [index for _, (index, _, _) in sorted(_json_boards(deals).items())]
    assert order == list(range(1, 7)) * 5


def test_every_pbn_file_is_in_strict_export_format(sample):
    out, pages = sample
    for page_id, (deals, _) in pages.items():
        raw = (out / f"deals/{page_id}.pbn").read_bytes()
        assert raw.isascii() and raw.startswith(b"% PBN 2.1\r\n% EXPORT\r\n")
        text = raw.decode("ascii")
        assert "\n" not in text.replace("\r\n", "") and "\t" not in text
        games = text[len("% PBN 2.1\r\n% EXPORT\r\n") :].split("\r\n\r\n")
        assert len(games) == sum(len(s["deals"]) for s in deals["scenarios"])
        for game in games:
            lines = game.rstrip("\r\n").split("\r\n")
            assert all(len(line) <= 255 for line in lines)
            names = [re.match(r'\[(\w+) "', line).group(1) for line in lines if line.startswith("[")]
            assert names[: len(MANDATORY_TAGS)] == list(MANDATORY_TAGS) and names[len(MANDATORY_TAGS) :] == ["Generator"]
            assert re.fullmatch(r"\{scenario \d+(: .*)?\}", lines[-1])
            assert '"?"]' not in " ".join(line for line in lines if line.startswith(("[Dealer", "[Vulnerable")))


def test_endplay_reads_every_board_of_every_lin_file_and_they_are_the_pbn_boards(sample):
    out, pages = sample
    for page_id, (deals, _) in pages.items():
        text = (out / f"deals/{page_id}.lin").read_bytes().decode("ascii")
        lines = text.split("\n")
        assert lines[-1] == "" and all(line.startswith("pn|") for line in lines[:-1])
        lin_boards = endplay_lin.loads(text)
        pbn_boards = endplay_pbn.loads((out / f"deals/{page_id}.pbn").read_text(encoding="ascii"))
        assert len(lin_boards) == len(pbn_boards) == len(lines) - 1
        for number, (lin, pbn) in enumerate(zip(lin_boards, pbn_boards), start=1):
            assert lin.board_num == pbn.board_num == number
            assert (lin.dealer, lin.vul) == (pbn.dealer, pbn.vul)
            assert lin.deal.to_pbn() == pbn.deal.to_pbn()


def test_the_convention_page_links_each_board_to_bbo(sample):
    out, pages = sample
    deals, _ = pages[42]
    html = (out / "conventions/42.html").read_text(encoding="utf-8")
    urls = re.findall(r'href="(https://www\.bridgebase\.com/tools/handviewer\.html\?lin=[^"]+)"', html)
    lines = (out / "deals/42.lin").read_text(encoding="ascii").splitlines()
    assert len(urls) == len(lines) == sum(len(s["deals"]) for s in deals["scenarios"])
    by_number = {int(re.search(r"\|ah\|Board (\d+)\|", line).group(1)): line for line in lines}
    for url in urls:
        line = unquote(url.split("?lin=", 1)[1])
        number = int(re.search(r"\|ah\|Board (\d+)\|", line).group(1))
        assert line == by_number[number]
    assert 'href="../deals/42.lin"' in html


def test_the_mirror_has_each_scenario_as_scripts_linked_from_its_page(sample):
    out, pages = sample
    deals, scenarios = pages[42]
    html = (out / "conventions/42.html").read_text(encoding="utf-8")
    for scenario in deals["scenarios"]:
        n = scenario["index"]
        dlr = (out / f"scripts/42/{n}.dlr").read_text(encoding="utf-8")
        tcl = (out / f"scripts/42/{n}.tcl").read_text(encoding="utf-8")
        assert "# page: Splinter" in dlr and f"# scenario {n} of 6: {scenario['label']}" in dlr
        assert f"exact probability {scenario['probability_fraction']}" in dlr and "action printoneline" in dlr
        assert "main {" in tcl and f"exact probability {scenario['probability_fraction']}" in tcl
        assert f'href="../scripts/42/{n}.dlr"' in html and f'href="../scripts/42/{n}.tcl"' in html
        champ = (out / f"scripts/42/{n}.bridgechamp.txt").read_text(encoding="utf-8")
        assert f"exact probability {scenario['probability_fraction']}" in champ and "not a uniform sample" in champ
        assert f'href="../scripts/42/{n}.bridgechamp.txt"' in html
    assert not (out / "scripts/42/7.dlr").exists()


def test_the_manifest_lists_every_page_and_its_files_with_their_digests(sample):
    import hashlib

    out, pages = sample
    manifest = json.loads((out / "api/manifest.json").read_text(encoding="utf-8"))
    status = json.loads((out / "api/status.json").read_text(encoding="utf-8"))
    listall = json.loads((out / "api/listall.json").read_text(encoding="utf-8"))["pages"]
    assert manifest["schemaVersion"] == 1 and manifest["generator"] == {"name": "bridgeshape-mirror", "version": VERSION}
    assert manifest["builtAt"] == status["builtAt"]
    assert [(p["pageId"], p["title"], p["status"]) for p in manifest["pages"]] == [(p["pageId"], p["title"], p["status"]) for p in listall]
    for page in manifest["pages"]:
        for entry in page["files"]:
            assert hashlib.sha256((out / entry["path"]).read_bytes()).hexdigest() == entry["sha256"]
        paths = {entry["path"] for entry in page["files"]}
        pid = page["pageId"]
        if pid in pages:
            deals, _ = pages[pid]
            assert page["revid"] == deals["revid"]
            assert [(s["index"], s["label"], s["probability"]) for s in page["scenarios"]] == [
                (s["index"], s["label"], s["probability"]) for s in deals["scenarios"]
            ]
            n = len(deals["scenarios"])
            assert {f"api/get/pageid/{pid}.json", f"api/deals/{pid}.json", f"deals/{pid}.pbn", f"deals/{pid}.lin"} <= paths
            assert {f"scripts/{pid}/{i}{s}" for i in range(1, n + 1) for s in (".dlr", ".tcl", ".bridgechamp.txt")} <= paths
        else:
            assert page["scenarios"] == [] and not any(p.startswith(("api/deals/", "deals/", "scripts/")) for p in paths)
    splinter = next(p for p in manifest["pages"] if p["pageId"] == 42)
    assert "api/get/title/Splinter.json" in {entry["path"] for entry in splinter["files"]}
