"""Par contracts and the double-dummy line in the page's bridge notation (issue 31): suit symbols
and the language's notrump (`4♥+1`, `3SA`, `5♦x-2` on Italian pages, `4♥`, `3NT` on English
ones), the declarer with Italian's article ("giocato dall'apertore", "dal rispondente"), no
game or slam said in words ("nessuno slam", not "uno slam in 0"); the JSON keeps its letters."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bridgeshape_mirror.deals.double_dummy import ParContract, Summary
from bridgeshape_mirror.dsl.model import Role
from bridgeshape_mirror.site_builder import html
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.site_builder.diagrams import contract_words
from support.wiki_pages import synced_export


@pytest.mark.parametrize(
    ("contract", "notrump", "written"),
    [
        (ParContract(4, "H", False, Role.OPENER, 1), "SA", "4♥+1"),
        (ParContract(3, "NT", False, Role.OPENER, 0), "SA", "3SA"),
        (ParContract(3, "NT", False, Role.RESPONDER, 2), "NT", "3NT+2"),
        (ParContract(5, "D", True, Role.OPP1, -2), "SA", "5♦x-2"),
        (ParContract(4, "S", False, Role.OPP2, 0), "NT", "4♠"),
        (ParContract(1, "C", True, Role.OPENER, 0), "NT", "1♣x"),
    ],
)
def test_a_contract_in_symbols_and_the_language_s_notrump(contract, notrump, written):
    assert contract_words(contract, notrump) == written
    assert contract.bid == written.replace("♥", "H").replace("♦", "D").replace("♠", "S").replace("♣", "C").replace(notrump, "NT")


PLAYED = {
    "it": ["4♥ giocato dall'apertore", "4♥ giocato dal rispondente", "4♥ giocato dall'avversario di sinistra", "4♥ giocato dall'avversario di destra"],
    "en": ["4♥ by opener", "4♥ by responder", "4♥ by left-hand opponent", "4♥ by right-hand opponent"],
}


@pytest.mark.parametrize("lang", ["it", "en"])
def test_who_plays_it_is_said_with_the_role_s_article(lang):
    env = html.environment(lang)
    template = env.from_string("{% for r in roles %}{{ _(played_by[r], contract='4♥') }}|{% endfor %}")
    assert template.render(roles=[role.value for role in (Role.OPENER, Role.RESPONDER, Role.OPP1, Role.OPP2)]).split("|")[:-1] == PLAYED[lang]


class _Scenario:
    def __init__(self, summary: Summary):
        self.dd_summary = summary


SUMMARIES = {
    Summary(deals=12, analysed=12, game=9, slam=4): {
        "it": "Doppio morto: la linea dell'apertore mantiene una manche in 9 su 12, uno slam in 4.",
        "en": "Double dummy: game makes for the opener's side in 9 of 12, slam in 4.",
    },
    Summary(deals=2, analysed=2, game=1, slam=0): {
        "it": "Doppio morto: la linea dell'apertore mantiene una manche in 1 su 2, nessuno slam.",
        "en": "Double dummy: game makes for the opener's side in 1 of 2, no slam.",
    },
    Summary(deals=30, analysed=20, game=5, slam=0): {
        "it": "Doppio morto: la linea dell'apertore mantiene una manche in 5 su 20 smazzate analizzate (di 30), nessuno slam.",
        "en": "Double dummy: game makes for the opener's side in 5 of 20 deals analysed (of 30), no slam.",
    },
    Summary(deals=3, analysed=3, game=0, slam=0): {
        "it": "Doppio morto: nessuna manche e nessuno slam per la linea dell'apertore (smazzate analizzate: 3).",
        "en": "Double dummy: no game and no slam for the opener's side (deals analysed: 3).",
    },
    Summary(deals=3, analysed=1, game=0, slam=0): {
        "it": "Doppio morto: nessuna manche e nessuno slam per la linea dell'apertore (smazzate analizzate: 1 su 3).",
        "en": "Double dummy: no game and no slam for the opener's side (deals analysed: 1 of 3).",
    },
}


@pytest.mark.parametrize("lang", ["it", "en"])
@pytest.mark.parametrize("summary", list(SUMMARIES))
def test_no_game_or_no_slam_is_said_in_words(lang, summary):
    shown = html.environment(lang).get_template("dd_summary.html.j2").render(scenario=_Scenario(summary))
    assert re.search(r'<p class="dd-summary">(.*)</p>', shown).group(1).replace("&#39;", "'") == SUMMARIES[summary][lang]
    assert " 0." not in shown and " 0," not in shown


@pytest.fixture(scope="module", params=["it", "en"])
def built(tmp_path_factory, request) -> tuple[str, Path]:
    base = tmp_path_factory.mktemp(f"notation-{request.param}")
    state = synced_export(base)
    assert build(state, BuildSettings(out=base / "out", deals=4, seed=5, lang=request.param)).dd_computed == 8
    return request.param, base / "out"


CONTRACT = {"it": r"[1-7](?:SA|[♠♥♦♣])x?(?:[+-]\d+)?", "en": r"[1-7](?:NT|[♠♥♦♣])x?(?:[+-]\d+)?"}
DECLARER = {
    "it": r" giocato (?:dall'apertore|dal rispondente|dall'avversario di (?:sinistra|destra))",
    "en": r" by (?:opener|responder|left-hand opponent|right-hand opponent)",
}


def test_the_page_writes_the_language_s_notation_and_the_json_its_letters(built):
    lang, out = built
    page = (out / "conventions/7.html").read_text(encoding="utf-8").replace("&#39;", "'")
    pars = re.findall(r'<p class="par">Par: (.*?), [+-]\d+ (?:per la linea|for the opener)', page)
    assert len(pars) == 8
    one = rf"{CONTRACT[lang]}{DECLARER[lang]}"
    passed = "passata" if lang == "it" else "passed out"
    for contracts in pars:
        assert contracts == passed or re.fullmatch(rf"{one}(?:, {one})*", contracts), contracts
    assert "in 0" not in page
    document = json.loads((out / "api/deals/7.json").read_text(encoding="utf-8"))
    written = [c for s in document["scenarios"] for d in s["deals"] for c in d["par"]["contracts"]]
    assert written and all(re.fullmatch(r"[1-7](?:NT|[SHDC])x?(?:[+-]\d+)? by (?:opener|responder|opp1|opp2)", c) for c in written), written
