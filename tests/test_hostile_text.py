"""Hostile text from the wiki: a siteinfo base that is not http(s) makes no link; a title
with a newline or a quote stays inside the PBN `[Event]` tag; control characters never
reach the terminal through the log."""

from __future__ import annotations

import logging

import pytest

from bridgeshape_mirror.logs import setup_logging
from bridgeshape_mirror.deals.boards.board import board
from bridgeshape_mirror.deals.boards.pbn import PbnExportWriter, PbnGame, iter_deal_strings
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.site_builder.wiki_links import WikiLinks
from bridgeshape_mirror.store.model import SiteInfo
from bridgeshape_mirror.store.state import StateStore
from bridgeshape_mirror.sync.dump import sync_from_dump
from bridgeshape_mirror.sync.syncer import SyncSettings
from support.wiki_pages import EXPORT

DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"


@pytest.mark.parametrize(
    "server",
    ["javascript:alert(1)//", "javascript://%0aalert(1)", "JaVaScRiPt://x", "data://text/html", "java\nscript://x", " https://x", "https://x/\x00"],
)
def test_a_server_that_is_not_http_makes_no_link(server):
    links = WikiLinks(SiteInfo(server=server, article_path="/index.php/$1", script_path=""))
    assert links.view("Stayman") is None and links.edit("Stayman") is None


@pytest.mark.parametrize("server", ["https://wiki.example.org", "http://127.0.0.1:8080", "//wiki.example.org"])
def test_http_servers_still_make_links(server):
    links = WikiLinks(SiteInfo(server=server, article_path="/wiki/$1", script_path="/w"))
    assert links.view("Stayman") == f"{server}/wiki/Stayman"
    assert links.edit("Stayman") == f"{server}/w/index.php?title=Stayman&action=edit"


def test_a_javascript_base_in_an_export_becomes_no_link_in_the_mirror(tmp_path):
    export = tmp_path / "export.xml"
    base = "<base>http://127.0.0.1:8080/index.php/Pagina_principale</base>"
    assert base in EXPORT
    export.write_text(EXPORT.replace(base, "<base>javascript://%0aalert(document.domain)//index.php/Main</base>"), encoding="utf-8")
    state, out = tmp_path / "state.sqlite", tmp_path / "output"
    with StateStore(state) as store:
        sync_from_dump(export, store, SyncSettings())
    build(state, BuildSettings(out=out, deals=1, dd_budget=0))
    pages = [p for p in out.resolve().rglob("*.html")]
    assert pages and not any("javascript:" in p.read_text(encoding="utf-8").lower() for p in pages)
    assert "javascript" not in (out / "report/report.json").read_text().lower()


def test_a_title_with_a_newline_and_quotes_stays_in_the_event_tag():
    import io

    text = io.StringIO()
    writer = PbnExportWriter(text)
    writer.write_game(PbnGame(board(1), DEAL, 'Stayman\r\n[Result "7NT"]\n"quoted" \\ end', "label\nwith } brace"))
    lines = text.getvalue().split("\r\n")
    events = [line for line in lines if line.startswith("[Event ")]
    assert events == ['[Event "Stayman  [Result \\"7NT\\"] \\"quoted\\" \\\\ end"]']
    assert sum(1 for line in lines if line.startswith("[Result ")) == 1
    assert all(not line or line[0] in "[{%" for line in lines)
    assert list(iter_deal_strings(text.getvalue())) == [DEAL]


def test_control_characters_in_log_messages_are_escaped(capfd):
    setup_logging(0)
    logging.getLogger("bridgeshape_mirror").warning("title %s", "a\x1b]0;owned\x07\u202etxt")
    err = capfd.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "\u202e" not in err
    assert "a\\x1b]0;owned\\x07\\u202etxt" in err
