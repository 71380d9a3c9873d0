"""The validation report written onto a wiki page (`update --report-page`): the page's own text
kept around the markers, a bot edit only when the text changed, edit conflicts read again,
`ratelimited` and `maxlag` waited out (faults from `responses`), and a write that fails is one
warning of a run that published. On the real MediaWiki: the page as the wiki parses it shows
every page's text literally, never as markup."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
import responses

from bridgeshape_mirror.commands.after_publish import after_publish
from bridgeshape_mirror.cli import build_parser
from bridgeshape_mirror.commands.update import update_config
from bridgeshape_mirror.config import Config, ConfigError, load
from bridgeshape_mirror.exit_codes import ExitCode
from bridgeshape_mirror.site_builder.build import BuildReport
from bridgeshape_mirror.site_builder.wiki_report import WikiReport
from bridgeshape_mirror.sync.client import ClientSettings, WikiClient
from bridgeshape_mirror.sync.errors import WikiApiError, WikiUnavailable
from bridgeshape_mirror.sync.wiki_page import END, START, MarkersBroken, spliced, write_report

try:
    from support.wiki_server import WikiServer
except ImportError:  # tests/ imported as a package
    from tests.support.wiki_server import WikiServer  # type: ignore[no-redef]

API = "http://wiki.test/w/api.php"
PAGE = "Progetto:Rapporto"


# -------------------------------------------------------------------------- the markers


def test_a_page_without_markers_gets_the_report_after_its_own_text():
    assert spliced("", "R") == f"{START}\nR\n{END}"
    assert spliced("Intro.\n\n", "R") == f"Intro.\n\n{START}\nR\n{END}"


def test_the_text_around_the_markers_is_kept():
    page = f"Prima.\n{START}\nvecchio\n{END}\nDopo ~~~~ {{{{x}}}}."
    assert spliced(page, "nuovo") == f"Prima.\n{START}\nnuovo\n{END}\nDopo ~~~~ {{{{x}}}}."


@pytest.mark.parametrize("page", [f"{START} a", f"a {END}", f"{END} {START}", f"{START}{END}{START}{END}"])
def test_markers_that_do_not_pair_are_left_alone(page):
    with pytest.raises(MarkersBroken):
        spliced(page, "R")


def test_the_report_page_is_a_key_of_wiki_and_a_flag_of_update(tmp_path):
    config = tmp_path / "mirror.toml"
    config.write_text('[wiki]\napi = "http://wiki.test/w/api.php"\nreport_page = "Progetto:Rapporto"\n', encoding="utf-8")
    assert load(str(config), {}).report_page == "Progetto:Rapporto"
    args = build_parser().parse_args(["update", "--config", str(config), "--report-page", "Altra pagina"])
    assert update_config(args).report_page == "Altra pagina"
    config.write_text('[wiki]\napi = "http://wiki.test/w/api.php"\nreport_page = " "\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="report_page is blank"):
        load(str(config), {})


# ------------------------------------------------------------------------- faults, by responses


class PageWiki:
    """One page and the API calls that read and edit it; `faults` answer the next edits."""

    def __init__(self, text: str | None) -> None:
        self.text = text
        self.revid = 10
        self.edits: list[dict[str, str]] = []
        self.faults: list[tuple[int, dict[str, str], str]] = []
        #: Saved by someone else when the next edit comes (an edit conflict).
        self.meanwhile: str | None = None

    def answer(self, request) -> tuple[int, dict[str, str], str]:
        params = dict(parse_qsl(urlsplit(request.url).query))
        if request.body:
            params.update(parse_qsl(request.body if isinstance(request.body, str) else request.body.decode()))
        ok = {"Content-Type": "application/json"}
        if params.get("meta") == "tokens":
            kind = params.get("type", "csrf")
            return 200, ok, json.dumps({"query": {"tokens": {f"{kind}token": "tok+\\"}}})
        if params["action"] == "login":
            return 200, ok, json.dumps({"login": {"result": "Success", "lgusername": "Bot"}})
        if params["action"] == "query":
            page = {"title": PAGE, "missing": True} if self.text is None else {
                "title": PAGE, "pageid": 7,
                "revisions": [{"revid": self.revid, "timestamp": f"2026-12-01T00:00:{self.revid:02d}Z", "slots": {"main": {"content": self.text}}}],
            }
            return 200, ok, json.dumps({"curtimestamp": "2026-12-03T12:00:00Z", "query": {"pages": [page]}})
        assert params["action"] == "edit" and request.method == "POST"
        self.edits.append(params)
        if self.faults:
            return self.faults.pop(0)
        if self.meanwhile is not None:
            self.text, self.meanwhile = self.meanwhile, None
            self.revid += 1
            return 200, ok, json.dumps({"error": {"code": "editconflict", "info": "Edit conflict."}})
        self.text = params["text"]
        self.revid += 1
        return 200, ok, json.dumps({"edit": {"result": "Success", "newrevid": self.revid}})


@pytest.fixture
def page_wiki():
    wiki = PageWiki("Testo della pagina.")
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_callback(responses.GET, API, callback=wiki.answer)
        mock.add_callback(responses.POST, API, callback=wiki.answer)
        yield wiki


def client(sleeps: list[float] | None = None) -> WikiClient:
    sleeps = [] if sleeps is None else sleeps
    return WikiClient(ClientSettings(api_url=API, backoff=1.0, max_retries=3), sleep=sleeps.append)


def test_a_bot_edit_only_when_the_text_changed(page_wiki):
    written = write_report(client(), PAGE, "Rapporto.", "riassunto")
    assert written.changed and written.revid == 11
    edit = page_wiki.edits[0]
    assert edit["bot"] == "1" and edit["assert"] == "bot" and edit["maxlag"] == "5" and edit["summary"] == "riassunto"
    assert edit["basetimestamp"] == "2026-12-01T00:00:10Z" and edit["starttimestamp"] == "2026-12-03T12:00:00Z"
    assert edit["token"] == "tok+\\" and "nocreate" in edit
    assert page_wiki.text == f"Testo della pagina.\n\n{START}\nRapporto.\n{END}"
    again = write_report(client(), PAGE, "Rapporto.", "riassunto")
    assert not again.changed and again.revid == 11 and len(page_wiki.edits) == 1


def test_a_missing_page_is_created(page_wiki):
    page_wiki.text = None
    assert write_report(client(), PAGE, "Rapporto.", "s").changed
    assert "createonly" in page_wiki.edits[0] and page_wiki.text == f"{START}\nRapporto.\n{END}"


def test_an_edit_conflict_reads_the_page_again_and_keeps_the_other_edit(page_wiki):
    page_wiki.meanwhile = "Riscritto da una persona."
    written = write_report(client(), PAGE, "Rapporto.", "s")
    assert written.changed and len(page_wiki.edits) == 2
    assert page_wiki.text == f"Riscritto da una persona.\n\n{START}\nRapporto.\n{END}"
    assert page_wiki.edits[1]["basetimestamp"] == "2026-12-01T00:00:11Z"


@pytest.mark.parametrize("code", ["ratelimited", "maxlag"])
def test_ratelimited_and_maxlag_are_waited_out(page_wiki, code):
    headers = {"Content-Type": "application/json", "Retry-After": "7"}
    page_wiki.faults = [(200, headers, json.dumps({"error": {"code": code, "info": "wait"}}))] * 2
    sleeps: list[float] = []
    assert write_report(client(sleeps), PAGE, "Rapporto.", "s").changed
    assert sleeps == [7.0, 7.0] and len(page_wiki.edits) == 3


def test_a_refused_edit_raises(page_wiki):
    page_wiki.faults = [(200, {"Content-Type": "application/json"}, json.dumps({"error": {"code": "protectedpage", "info": "protected"}}))]
    with pytest.raises(WikiApiError, match="protectedpage"):
        write_report(client(), PAGE, "Rapporto.", "s")
    page_wiki.faults = [(200, {"Content-Type": "application/json"}, json.dumps({"error": {"code": "ratelimited", "info": "x"}}))] * 9
    with pytest.raises(WikiUnavailable, match="ratelimited"):
        write_report(client(), PAGE, "Rapporto.", "s")


def built(text: str = "Rapporto.") -> BuildReport:
    return BuildReport(changed=True, wiki_report=WikiReport(text, "riassunto", "it"))


def test_after_the_publish_a_failure_is_one_warning(page_wiki):
    config = Config(api=API, username="Bot@mirror", password="x" * 32, report_page=PAGE, max_retries=0)
    page_wiki.faults = [(200, {"Content-Type": "application/json"}, json.dumps({"error": {"code": "protectedpage", "info": "protected"}}))]
    published = after_publish(config, built())
    assert "not written" in published.warning() and "protectedpage" in published.warning()
    assert published.after.done == ""
    published = after_publish(config, built())
    assert published.warning() == "" and f"report page {PAGE!r} written (revision 11)" in published.summary()
    assert "unchanged" in after_publish(config, built()).summary()


def test_no_login_or_no_api_is_a_warning_and_no_request():
    report = built()
    assert after_publish(Config(api=API, report_page=PAGE), report).after.problem.startswith(f"report page {PAGE!r} not written: a bot edit needs a login")
    assert "export" in after_publish(Config(dump="x.xml", report_page=PAGE), report).warning()
    assert after_publish(Config(api=API), report).after.problem == ""


def test_a_wiki_that_is_down_is_a_warning():
    config = Config(api="http://127.0.0.1:9/api.php", username="Bot@mirror", password="x" * 32, report_page=PAGE, max_retries=0, timeout=2)
    problem = after_publish(config, built()).after.problem
    assert problem.startswith(f"report page {PAGE!r} not written (") and problem.endswith("the mirror is published")


# ------------------------------------------------------------------------- the real wiki

#: Text of pages that would be markup if it were not shown literally.
HOSTILE_DSL = (
    "trap {{Trappola}} [[Categoria:Rotta]] [[Pagina rossa]] <nowiki>~~~~</nowiki> __NOINDEX__ "
    "<script>alert(1)</script> </nowiki> '''grassetto''' ISBN 9780306406157 http://example.org/x: opener H:5+ | x"
)
HOSTILE_TITLE = "Tilde ~~ e ''corsivo'' & co"  # MediaWiki refuses three tildes in a title
OWN_TOP = "Questa pagina è scritta da un bot.\n"
OWN_BOTTOM = "\n== Note ==\nTesto nostro, dopo il rapporto."


def convention(value: str) -> str:
    return f"Una convenzione.\n{{{{Convenzione\n|shape_constraints={value}\n}}}}\n"


@pytest.fixture(scope="module")
def wiki(mediawiki_installed):
    with WikiServer().start() as server:
        server.admin.edit("Template:Convenzione", "<code>{{{shape_constraints|}}}</code>")
        server.admin.edit("Buona", convention("opener H:5+ hcp:12-21"))
        server.admin.edit("Rotta", convention(HOSTILE_DSL))
        server.admin.edit(HOSTILE_TITLE, convention("opener H:5+"))
        server.admin.edit(HOSTILE_TITLE, convention("opener opner"))
        server.admin.edit(PAGE, f"{OWN_TOP}{START}\nvecchio\n{END}{OWN_BOTTOM}")
        server.run_jobs()
        yield server


def run_update(wiki, tmp_path: Path) -> subprocess.CompletedProcess:
    password = tmp_path / "password"
    password.write_text(wiki.bot_password + "\n", encoding="utf-8")
    config = tmp_path / "mirror.toml"
    config.write_text(
        f'[wiki]\napi = "{wiki.api_url}"\nusername = "{wiki.bot_user}"\npassword_file = "password"\n'
        f'[sync]\nstate = "state.sqlite"\n[build]\nout = "output"\ndeals = 0\ndd_budget = 0\n',
        encoding="utf-8",
    )
    return subprocess.run(
        [sys.executable, "-m", "bridgeshape_mirror.cli", "update", "--config", str(config), "--report-page", PAGE, "--contact", "tests@example.org"],
        capture_output=True, text=True, timeout=300,
    )


def page_parse(wiki) -> dict:
    return wiki.admin.get(action="parse", page=PAGE, prop="text|templates|links|categories|properties|externallinks|wikitext")["parse"]


@pytest.mark.slow
def test_the_report_on_the_real_wiki(wiki, tmp_path):
    admin = wiki.admin
    # No bot right yet: the mirror is published, the page is not written, one warning says why.
    before = admin.latest_revid(PAGE)
    done = run_update(wiki, tmp_path)
    assert done.returncode == ExitCode.OK, done.stderr
    assert (tmp_path / "output" / "report" / "feed.atom").is_file()
    warnings = [line for line in done.stderr.splitlines() if "WARNING" in line]
    assert len(warnings) == 1 and "not written" in warnings[0] and "assertbotfailed" in warnings[0], done.stderr
    assert admin.latest_revid(PAGE) == before

    admin.add_groups(wiki.admin_user, "bot", reason="the mirror's bot")
    done = run_update(wiki, tmp_path)
    assert done.returncode == ExitCode.OK and "WARNING" not in done.stderr, done.stderr
    revid = admin.latest_revid(PAGE)
    assert revid != before and f"report page {PAGE!r} written (revision {revid})" in done.stderr
    text = admin.page_text(PAGE)
    assert text.startswith(OWN_TOP + START) and text.endswith(END + OWN_BOTTOM)
    assert "vecchio" not in text and "~~~~" in text  # no signature made of the page's tildes
    change = admin.recentchanges(limit=1, title=PAGE)[0]
    assert change["revid"] == revid and change["bot"] is True

    parsed = page_parse(wiki)
    assert parsed["templates"] == [] and parsed["categories"] == [] and parsed["externallinks"] == []
    assert "noindex" not in {p["name"] for p in parsed["properties"]}
    assert {link["title"] for link in parsed["links"]} == {"Rotta", HOSTILE_TITLE}
    html = parsed["text"]
    assert "<script" not in html and "<b>" not in html and "ISBN" in html and "Special:BookSources" not in html
    shown = re.sub(r"<[^>]+>", "", html).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").replace("&#39;", "'").replace("&quot;", '"')
    for piece in ("{{Trappola}}", "[[Categoria:Rotta]]", "[[Pagina rossa]]", "<nowiki>~~~~</nowiki>", "__NOINDEX__",
                  "<script>alert(1)</script>", "</nowiki>", "'''grassetto'''", "http://example.org/x", HOSTILE_TITLE):
        assert piece in shown, piece
    assert "Special:Diff/" in html or "Speciale:Diff/" in html

    # Nothing changed on the wiki: no edit. A fix: an edit without the page.
    done = run_update(wiki, tmp_path)
    assert done.returncode == ExitCode.OK and f"report page {PAGE!r} unchanged" in done.stderr, done.stderr
    assert admin.latest_revid(PAGE) == revid
    admin.edit("Rotta", convention("opener H:5+"))
    done = run_update(wiki, tmp_path)
    assert done.returncode == ExitCode.OK and "WARNING" not in done.stderr, done.stderr
    assert admin.latest_revid(PAGE) != revid
    assert "Trappola" not in admin.page_text(PAGE) and {link["title"] for link in page_parse(wiki)["links"]} == {HOSTILE_TITLE}
    feed = (tmp_path / "output" / "report" / "feed.atom").read_text(encoding="utf-8")
    assert "Rotta: fixed" in feed
