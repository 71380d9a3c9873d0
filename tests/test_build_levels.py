"""The mirror's levelled sets (`[build] level`, SEMANTICS 7): every scenario the measure applies
to is published as a levelled set (its JSON, PBN, LIN, convention page and manifest say so),
the others stay uniform; changing the setting re-deals, leaving it alone re-deals nothing."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from endplay import evaluate
from endplay.types import Deal as EndplayDeal

from bridgeshape_mirror.config import ConfigError, load
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from support.schemas import check_schema

DEALS = 4


@pytest.fixture
def state(sample_state) -> Path:
    """The synced sample wiki's state store (conftest's `sample_state`), this test's copy."""
    return sample_state


def deals_documents(out: Path) -> dict[str, dict]:
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted((out / "api" / "deals").glob("*.json"))}


def scenarios(out: Path) -> list[dict]:
    return [s for doc in deals_documents(out).values() for s in doc["scenarios"]]


def test_every_scenario_with_the_role_is_a_levelled_set_of_true_classes(state, tmp_path):
    out = tmp_path / "out"
    build(state, BuildSettings(out=out, deals=DEALS, dd_budget=0, level=("suit:responder",)))
    levelled = [s for s in scenarios(out) if "levels" in s]
    uniform = [s for s in scenarios(out) if "levels" not in s]
    assert levelled and uniform  # the sample has responders with a wildcard, and scenarios without
    for doc in deals_documents(out).values():
        check_schema("deals.json", doc)
    for s in levelled:
        names = [c["class"] for c in s["levels"]["classes"]]
        assert s["levels"]["by"] == "suit:responder" and set(names) <= set("SHDC")
        assert sum(c["boards"] for c in s["levels"]["classes"]) == len(s["deals"]) == DEALS
        shares = [c["natural_share"] for c in s["levels"]["classes"]]
        assert abs(sum(shares) - 1) < 1e-9
        for deal in s["deals"]:
            assert deal["class"] in names
    for s in uniform:
        assert all("class" not in d for d in s["deals"])


def test_the_classes_of_hcp_bands_are_the_openers_hcp_by_endplay(state, tmp_path):
    out = tmp_path / "out"
    build(state, BuildSettings(out=out, deals=DEALS, dd_budget=0, level=("hcp:opener",)))
    checked = 0
    for s in scenarios(out):
        if "levels" not in s:
            continue
        for deal in s["deals"]:
            lo, _, hi = deal["class"].partition("-")
            hcp = evaluate.hcp(EndplayDeal(deal["pbn"]).north)  # opener North in `pbn`
            assert int(lo) <= hcp <= int(hi or lo), (deal["pbn"], deal["class"])
            checked += 1
    assert checked > 40


class _Tables(HTMLParser):
    """The rows of the convention page's tables of classes (class="levels")."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._in, self._row = False, None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and ("class", "levels") in attrs:
            self._in = True
        elif self._in and tag == "tr":
            self._row = []
        elif self._in and tag == "td" and self._row is not None:
            self._row.append("")

    def handle_endtag(self, tag):
        if tag == "table":
            self._in = False
        elif tag == "tr" and self._row:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._in and self._row:
            self._row[-1] += data


def test_the_convention_page_the_pbn_lin_and_manifest_say_the_classes(state, tmp_path):
    out = tmp_path / "out"
    build(state, BuildSettings(out=out, deals=DEALS, dd_budget=0, level=("hcp:opener",), lang="it"))
    manifest = json.loads((out / "api" / "manifest.json").read_text(encoding="utf-8"))
    check_schema("manifest.json", manifest)
    page = next(p for p in manifest["pages"] if any("levels" in s for s in p["scenarios"]))
    pid = page["pageId"]
    doc = json.loads((out / "api" / "deals" / f"{pid}.json").read_text(encoding="utf-8"))
    first = doc["scenarios"][0]
    listed = page["scenarios"][0]["levels"]
    assert listed == {
        "by": first["levels"]["by"],
        "classes": [{"class": c["class"], "natural_share": c["natural_share"], "boards": c["boards"]} for c in first["levels"]["classes"]],
    }
    html = (out / "conventions" / f"{pid}.html").read_text(encoding="utf-8")
    assert "Un insieme livellato" in html and "Frequenza naturale" in html
    tables = _Tables()
    tables.feed(html)
    rows = [r for r in tables.rows if r]
    assert [r[0] for r in rows[: len(first["levels"]["classes"])]] == [c["class"] for c in first["levels"]["classes"]]
    assert all(r[1].endswith("%") and "," in r[1] for r in rows)  # Italian decimals
    pbn = (out / "deals" / f"{pid}.pbn").read_text(encoding="ascii")
    lin = (out / "deals" / f"{pid}.lin").read_text(encoding="ascii")
    for deal in first["deals"]:
        assert f'[Level "{deal["class"]}"]' in pbn
        assert f"|st|class {deal['class']}|" in lin


def test_changing_the_setting_re_deals_and_leaving_it_alone_re_deals_nothing(state, tmp_path):
    out = tmp_path / "out"
    plain = build(state, BuildSettings(out=out, deals=DEALS, dd_budget=0))
    uniform = deals_documents(out)
    again = build(state, BuildSettings(out=out, deals=DEALS, dd_budget=0, level=("hcp:opener",)))
    assert again.deals_drawn == plain.deals_drawn > 0 and again.changed  # every scenario has an opener
    same = build(state, BuildSettings(out=out, deals=DEALS, dd_budget=0, level=("hcp:opener",)))
    assert same.deals_drawn == 0 and not same.changed
    other = build(state, BuildSettings(out=out, deals=DEALS, dd_budget=0, level=("suit:responder",)))
    assert 0 < other.deals_drawn  # every scenario: levelled otherwise, or uniform now
    back = build(state, BuildSettings(out=out, deals=DEALS, dd_budget=0))
    assert back.deals_drawn > 0 and deals_documents(out) == uniform  # uniform again: the same deals as before


@pytest.mark.parametrize(
    "value, says",
    [
        ('"colour:opener"', "unknown measure 'colour'"),
        ('"hcp:dealer"', "unknown role 'dealer'"),
        ('"hcp:opener suit:opp1 fit"', "at most two"),
        ("3", "is not a measure"),
        ('"hcp:opener:12-14,16-21"', "leave a gap"),
    ],
)
def test_a_level_setting_that_cannot_apply_is_a_configuration_error(tmp_path, value, says):
    config = tmp_path / "c.toml"
    config.write_text(f"[build]\nlevel = {value}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=says):
        load(str(config), {})


def test_a_level_setting_is_one_measure_two_or_a_list(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text('[build]\nlevel = ["hcp:opener", "suit:opp1"]\n', encoding="utf-8")
    assert load(str(config), {}).level == ("hcp:opener", "suit:opp1")
    config.write_text('[build]\nlevel = "shape:responder"\n', encoding="utf-8")
    assert load(str(config), {}).level == ("shape:responder",)
    assert load(None, {}).level == ()
