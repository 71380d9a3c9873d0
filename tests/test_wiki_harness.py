"""Tests of the real-MediaWiki test harness (tests/support/wiki_server.py, scripts/mediawiki/).

They start a real MediaWiki (Debian's package, SQLite, php -S) once per module and
check, through the Action API with plain ``requests``, what the sync tests rely on.
Needs ``bash scripts/mediawiki/install-deps.sh`` first (set
BSM_MEDIAWIKI_AUTO_INSTALL=1 to let the fixture run it).
"""

from __future__ import annotations

import os
import subprocess

import pytest
import requests

try:
    from support.wiki_server import (
        WIKI_SH,
        ApiError,
        WikiServer,
        WikiStartError,
    )
except ImportError:  # tests/ imported as a package
    from tests.support.wiki_server import (  # type: ignore[no-redef]
        WIKI_SH,
        ApiError,
        WikiServer,
        WikiStartError,
    )

pytestmark = pytest.mark.slow

TEMPLATE = "Template:Convenzione"
TEMPLATE_TEXT = (
    '{| class="wikitable"\n! Nome\n| {{{Nome|}}}\n|-\n! Vincoli\n'
    "| <code>{{{shape_constraints|}}}</code>\n|}\n"
)
PAGES = {
    "Stayman": "opener hcp:15-17 shape:balanced; responder hcp:8+ H:4 // "
    "senza maggiore: opener hcp:15-17; responder hcp:8+ H:0-3 S:0-3",
    "Transfer Jacoby": "opener hcp:15-17 shape:balanced; responder H:5+",
}


def page_text(nome: str, constraints: str) -> str:
    return (
        f"Una convenzione.\n{{{{Convenzione\n|Nome={nome}\n|shape_constraints={constraints}\n}}}}\n"
    )


@pytest.fixture(scope="module")
def wiki(tmp_path_factory, mediawiki_installed):
    server = WikiServer(tmp_path_factory.mktemp("wiki-state"))
    server.start()
    try:
        yield server
    finally:
        server.stop()
    assert not server.running


@pytest.fixture(scope="module")
def conventions(wiki):
    """The template and two pages that transclude it, with jobs run."""
    admin = wiki.admin
    admin.create(TEMPLATE, TEMPLATE_TEXT, "template")
    revids = {t: admin.create(t, page_text(t, c), "nuova convenzione") for t, c in PAGES.items()}
    wiki.run_jobs()
    return revids


def api(wiki, session=None, **params):
    """A raw Action API GET with plain requests (independent of WikiClient)."""
    params.setdefault("format", "json")
    params.setdefault("formatversion", "2")
    r = (session or requests).get(wiki.api_url, params=params, timeout=30)
    assert r.status_code == 200, r.text[:500]
    data = r.json()
    assert "error" not in data, data
    return data


def embeddedin(wiki, title, namespace=0):
    data = api(
        wiki, action="query", list="embeddedin", eititle=title, eilimit="max", einamespace=namespace
    )
    return sorted(p["title"] for p in data["query"]["embeddedin"])


def logevents(wiki, **params):
    data = api(
        wiki,
        action="query",
        list="logevents",
        lelimit="max",
        leprop="ids|title|type|details|timestamp|user",
        **params,
    )
    return data["query"]["logevents"]


def recentchanges(wiki, **params):
    data = api(
        wiki,
        action="query",
        list="recentchanges",
        rclimit="max",
        rcprop="title|ids|loginfo|user|timestamp",
        **params,
    )
    return data["query"]["recentchanges"]


def login_token(wiki, session):
    data = api(wiki, session, action="query", meta="tokens", type="login")
    return data["query"]["tokens"]["logintoken"]


def info(wiki, title):
    return api(wiki, action="query", prop="info", titles=title)["query"]["pages"][0]


# --------------------------------------------------------------------------- tests


def test_real_mediawiki_on_sqlite_answers(wiki):
    general = api(wiki, action="query", meta="siteinfo")["query"]["general"]
    assert general["generator"].startswith("MediaWiki 1.")
    assert general["dbtype"] == "sqlite"
    assert general["phpsapi"] == "cli-server"
    assert general["server"] == wiki.base_url
    assert wiki.host == f"127.0.0.1:{wiki.port}" and wiki.script_path == "/"
    assert general["script"] == "/index.php"
    assert wiki.api_url == wiki.base_url + "/api.php"
    r = requests.get(wiki.index_url, params={"title": "Main_Page"}, timeout=30)
    assert r.status_code == 200
    assert "<html" in r.text and "BridgeTest" in r.text
    raw = requests.get(wiki.index_url, params={"title": "Main_Page", "action": "raw"}, timeout=30)
    assert raw.status_code == 200 and "MediaWiki" in raw.text


def test_template_transclusions_found_by_embeddedin(wiki, conventions):
    assert embeddedin(wiki, TEMPLATE) == sorted(PAGES)
    for title, constraints in PAGES.items():
        data = api(
            wiki,
            action="query",
            prop="revisions|templates",
            titles=title,
            rvprop="ids|content",
            rvslots="main",
        )
        page = data["query"]["pages"][0]
        assert page["revisions"][0]["revid"] == conventions[title]
        content = page["revisions"][0]["slots"]["main"]["content"]
        assert f"shape_constraints={constraints}" in content
        assert {"ns": 10, "title": TEMPLATE} in page["templates"]
        html = api(wiki, action="parse", page=title, prop="text")["parse"]["text"]
        assert "hcp:15-17" in html  # the template really rendered the parameter
    assert wiki.admin.embeddedin(TEMPLATE) == sorted(PAGES)  # the client agrees


def test_template_edit_updates_links_only_after_run_jobs(wiki, conventions):
    admin = wiki.admin
    admin.create("Template:Convenzione/Nota", "''nota''")
    admin.edit(TEMPLATE, TEMPLATE_TEXT + "{{Convenzione/Nota}}\n", "aggiunge la nota")
    # The template's own links are updated at once ...
    assert embeddedin(wiki, "Template:Convenzione/Nota", namespace=10) == [TEMPLATE]
    # ... but api.php runs no jobs ($wgJobRunRate = 0): those of the pages are stale ...
    assert embeddedin(wiki, "Template:Convenzione/Nota") == []
    assert wiki.job_count() > 0
    # ... until the job queue is run.
    assert wiki.run_jobs() > 0
    assert wiki.job_count() == 0
    assert embeddedin(wiki, "Template:Convenzione/Nota") == sorted(PAGES)
    assert embeddedin(wiki, TEMPLATE) == sorted(PAGES)


def test_edits_give_new_revids(wiki, conventions):
    admin = wiki.admin
    title = "Stayman"
    before = info(wiki, title)["lastrevid"]
    assert before == conventions[title]
    rev1 = admin.edit(title, page_text(title, "opener hcp:15-17; responder hcp:8+"), "1")
    rev2 = admin.edit(title, page_text(title, "opener hcp:15-17; responder hcp:9+"), "2")
    assert before < rev1 < rev2
    assert info(wiki, title)["lastrevid"] == rev2
    # A no-change edit makes no revision.
    assert admin.edit(title, page_text(title, "opener hcp:15-17; responder hcp:9+")) == rev2
    revs = api(
        wiki, action="query", prop="revisions", titles=title, rvlimit="max", rvprop="ids|comment"
    )["query"]["pages"][0]["revisions"]
    assert [r["revid"] for r in revs][:3] == [rev2, rev1, before]
    assert [r["comment"] for r in revs][:2] == ["2", "1"]
    rc = recentchanges(wiki, rctitle=title, rctype="edit")
    assert {rev1, rev2} <= {c["revid"] for c in rc}
    # create() refuses to overwrite.
    with pytest.raises(ApiError) as exc:
        admin.create(title, "x")
    assert exc.value.code == "articleexists"


def test_delete_and_undelete_show_in_logevents_and_recentchanges(wiki, conventions):
    admin = wiki.admin
    title = "Convenzione da cancellare"
    admin.create(title, page_text(title, "opener S:5+"))
    pageid = admin.page_id(title)
    assert pageid == info(wiki, title)["pageid"]

    logid = admin.delete(title, "prova cancellazione")
    assert admin.page_id(title) is None and info(wiki, title).get("missing")
    deletes = [
        e for e in logevents(wiki, letype="delete", letitle=title) if e["action"] == "delete"
    ]
    assert [e["logid"] for e in deletes] == [logid]
    assert deletes[0]["logpage"] == pageid
    rc = recentchanges(wiki, rctype="log", rctitle=title)
    assert any(
        c["logtype"] == "delete" and c["logaction"] == "delete" and c["logid"] == logid for c in rc
    )

    assert admin.undelete(title, "ripristino") == 1
    assert admin.page_id(title) == pageid  # MediaWiki 1.39 keeps the page id
    restores = [
        e for e in logevents(wiki, letype="delete", letitle=title) if e["action"] == "restore"
    ]
    assert len(restores) == 1
    rc = recentchanges(wiki, rctype="log", rctitle=title)
    assert any(c["logtype"] == "delete" and c["logaction"] == "restore" for c in rc)
    assert "opener S:5+" in admin.page_text(title)


def test_move_shows_in_logevents_and_recentchanges(wiki, conventions):
    admin = wiki.admin
    old, new = "Convenzione vecchia", "Convenzione nuova"
    admin.create(old, page_text(old, "opener H:5+"))
    pageid = admin.page_id(old)
    result = admin.move(old, new, leave_redirect=False, reason="rinomina")
    assert result["from"] == old and result["to"] == new
    assert admin.page_id(old) is None
    assert admin.page_id(new) == pageid
    moves = logevents(wiki, letype="move", letitle=old)
    assert len(moves) == 1 and moves[0]["params"]["target_title"] == new
    assert moves[0]["params"]["suppressredirect"] is True
    rc = recentchanges(wiki, rctype="log", rctitle=old)
    assert any(c["logtype"] == "move" and c["logaction"] == "move" for c in rc)

    # With a redirect left behind, the old title becomes a redirect page.
    admin.move(new, "Convenzione nuovissima", leave_redirect=True)
    redirect = info(wiki, new)
    assert redirect.get("redirect") is True and redirect["pageid"] != pageid
    assert admin.page_id("Convenzione nuovissima") == pageid


def test_bot_password_logs_in_with_plain_requests(wiki, conventions):
    assert wiki.bot_user == f"{wiki.admin_user}@{wiki.bot_appid}"
    s = requests.Session()
    token = login_token(wiki, s)
    r = s.post(
        wiki.api_url,
        data={
            "action": "login",
            "lgname": wiki.bot_user,
            "lgpassword": wiki.bot_password,
            "lgtoken": token,
            "format": "json",
        },
        timeout=30,
    )
    assert r.json()["login"]["result"] == "Success", r.text
    user = api(wiki, s, action="query", meta="userinfo", uiprop="rights")["query"]["userinfo"]
    assert user["name"] == wiki.admin_user
    assert {"edit", "delete", "undelete", "move"} <= set(user["rights"])
    csrf = api(wiki, s, action="query", meta="tokens")["query"]["tokens"]["csrftoken"]
    r = s.post(
        wiki.api_url,
        data={
            "action": "edit",
            "title": "Bot test",
            "text": "bot",
            "token": csrf,
            "format": "json",
        },
        timeout=30,
    )
    assert r.json()["edit"]["result"] == "Success", r.text
    # A wrong bot password is refused.
    s2 = requests.Session()
    token = login_token(wiki, s2)
    r = s2.post(
        wiki.api_url,
        data={
            "action": "login",
            "lgname": wiki.bot_user,
            "lgpassword": "0" * 32,
            "lgtoken": token,
            "format": "json",
        },
        timeout=30,
    )
    assert r.json()["login"]["result"] != "Success"
    # The harness client logs in the same way.
    assert wiki.client(bot=True).userinfo()["name"] == wiki.admin_user


def test_import_xml(wiki, conventions, tmp_path):
    r = requests.get(
        wiki.api_url,
        params={"action": "query", "titles": "Transfer Jacoby", "export": 1, "exportnowrap": 1},
        timeout=30,
    )
    assert r.status_code == 200 and "<mediawiki" in r.text
    xml = r.text.replace("<title>Transfer Jacoby</title>", "<title>Importata</title>")
    xml = xml.replace("Nome=Transfer Jacoby", "Nome=Importata")
    dump = tmp_path / "dump.xml"
    dump.write_text(xml, encoding="utf-8")
    wiki.import_xml(dump)
    assert wiki.admin.page_id("Importata") is not None
    assert "Nome=Importata" in wiki.admin.page_text("Importata")
    assert "Importata" in embeddedin(wiki, TEMPLATE)
    # importDump.php writes no recentchanges rows; import_xml rebuilds them.
    assert recentchanges(wiki, rctitle="Importata")


def test_start_failure_reports_php_log(tmp_path, mediawiki_installed):
    state = tmp_path / "broken"
    with WikiServer(state) as server:
        assert server.admin.page_id("Main Page") is not None
    (state / "ExtraSettings.php").write_text("<?php this is not php;\n")
    broken = WikiServer(state, fresh=False, start_timeout=3)
    with pytest.raises(WikiStartError) as exc:
        broken.start()
    assert "did not answer" in str(exc.value)
    assert "syntax error" in str(exc.value)  # the tail of the PHP log
    assert not broken.running
    # The same folder starts again from scratch with fresh=True.
    (state / "ExtraSettings.php").unlink()
    with WikiServer(state, fresh=True) as server:
        assert server.admin.page_id("Main Page") is not None


def test_wiki_sh_by_hand(tmp_path, mediawiki_installed):
    state = tmp_path / "byhand"

    # BSM_WIKI_PARENT_PID: the server goes away with this process even if the test dies.
    env = {**os.environ, "BSM_WIKI_PARENT_PID": str(os.getpid())}

    def run(*args):
        return subprocess.run(
            ["bash", str(WIKI_SH), *args], capture_output=True, text=True, timeout=120, env=env
        )

    try:
        started = run("start", str(state))
        assert started.returncode == 0, started.stderr
        url = started.stdout.strip()
        assert url.startswith("http://127.0.0.1:")
        assert (
            requests.get(
                url + "/api.php",
                params={"action": "query", "meta": "siteinfo", "format": "json"},
                timeout=30,
            ).json()["query"]["general"]["sitename"]
            == "BridgeTest"
        )
        status = run("status", str(state))
        assert status.returncode == 0 and status.stdout.strip() == url
        again = run("start", str(state))  # already running: same URL, no second server
        assert again.returncode == 0 and again.stdout.strip() == url
        jobs = run("maint", str(state), "showJobs.php")
        assert jobs.returncode == 0 and jobs.stdout.strip() == "0"
    finally:
        stopped = run("stop", str(state))
    assert stopped.returncode == 0, stopped.stderr
    assert run("status", str(state)).returncode == 3
    with pytest.raises(requests.ConnectionError):
        requests.get(url + "/api.php", timeout=5)
