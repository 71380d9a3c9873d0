"""API requests the sync makes against a real MediaWiki: a full sync of N convention pages, and
an idle incremental run. Targets (issue 4): full at most ceil(N/50)+3, idle at most 3.

Run: .venv/bin/python benchmarks/sync_requests.py [--pages N]

Starts a throw-away wiki with the test harness (tests/support/wiki_server.py; needs
`bash scripts/mediawiki/install-deps.sh` once), imports N convention pages from a generated
XML export (importDump.php, then rebuildrecentchanges.php and the job queue, so that
recent changes and list=embeddedin are complete), and syncs them with the library into a
temporary state store. Requests are counted twice: by the client (`WikiClient.requests`)
and by the server (api.php lines of the PHP server log). It reports figures and PASS/FAIL;
it does not gate: the exit status is 0 unless the benchmark itself crashed.
"""

from __future__ import annotations

import argparse
import math
import random
import signal
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from xml.sax.saxutils import escape

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from bridgeshape_mirror.store.state import StateStore  # noqa: E402
from bridgeshape_mirror.sync.client import ClientSettings, WikiClient  # noqa: E402
from bridgeshape_mirror.sync.syncer import ApiSync, SyncSettings  # noqa: E402
from support.wiki_server import WikiServer, is_installed  # noqa: E402

TEMPLATE = "Template:Convenzione"
TEMPLATE_TEXT = (
    '{| class="wikitable"\n! Nome\n| {{{nome|}}}\n|-\n! Vincoli\n'
    "| <code>{{{shape_constraints|}}}</code>\n|}<noinclude>Il modello delle convenzioni.</noinclude>"
)
#: Whole-run bound in seconds (wiki start, import, syncs); past it the benchmark stops as crashed.
TIME_LIMIT = 600

SUITS = "SHDC"


def dsl(rng: random.Random) -> str:
    a, b = rng.sample(SUITS, 2)
    low = rng.randint(10, 15)
    scenarios = [
        f"1{a}-4{b}: fit:{a}8+ opener {a}:5+ hcp:{low}-21; responder {a}:4+ {b}:0-1 {b}hcp:0 hcp:10-15",
        f"opener hcp:15-17 shape:balanced; responder {a}:5+ hcp:{rng.randint(0, 8)}+",
        f"opener hcp:12-21 x:5+; opp1 hcp:{low - 2}+ {a}:5+; opp2 fit:{rng.randint(8, 10)}+",
        f"opener {a}:7+ x:0-1 hcp:5-10 shape:one_suiter",
    ]
    return "\n  // ".join(rng.sample(scenarios, rng.randint(1, 3)))


def page_text(i: int, rng: random.Random) -> str:
    return (
        f"Convenzione numero {i} del sistema di prova.\n\n"
        "{{Convenzione\n"
        f"|nome=Convenzione {i}\n"
        f"|shape_constraints= <!-- scenari -->\n  {dsl(rng)}\n"
        "}}\n\n== Note ==\nTesto di esempio.\n[[Category:Convenzioni]]\n"
    )


def export_xml(pages: list[tuple[str, str]], timestamp: datetime) -> str:
    stamp = timestamp.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    body = "".join(
        f"<page><title>{escape(title)}</title><ns>0</ns><revision><timestamp>{stamp}</timestamp>"
        "<contributor><username>Importatore</username></contributor><model>wikitext</model>"
        f'<format>text/x-wiki</format><text xml:space="preserve">{escape(text)}</text></revision></page>'
        for title, text in pages
    )
    return f'<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="it">{body}</mediawiki>'


class ServerLog:
    """Counts api.php requests in the PHP server log between two marks."""

    def __init__(self, wiki: WikiServer):
        self.path = wiki.log_path
        self.mark = 0

    def _api_lines(self) -> list[str]:
        lines = self.path.read_text(errors="replace").splitlines()
        return [line for line in lines if "/api.php" in line and "]: " in line]

    def start(self) -> None:
        self.mark = len(self._api_lines())

    def count(self) -> int:
        # php -S writes a request's line after answering it: wait until the log settles.
        previous = -1
        for _ in range(20):
            now = len(self._api_lines()) - self.mark
            if now == previous:
                return now
            previous = now
            time.sleep(0.1)
        return previous


def verdict(value: int, target: int) -> str:
    return "PASS" if value <= target else "FAIL"


def on_alarm(signum, frame):  # noqa: ANN001
    raise TimeoutError(f"the benchmark took more than {TIME_LIMIT} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=200, help="convention pages to create (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    n = args.pages
    if not is_installed():
        print("MediaWiki for the harness is not installed: run bash scripts/mediawiki/install-deps.sh", file=sys.stderr)
        return 1
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(TIME_LIMIT)
    rng = random.Random(args.seed)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bsm-sync-bench-") as tmp, WikiServer(Path(tmp) / "wiki") as wiki:
        t0 = time.monotonic()
        wiki.admin.create(TEMPLATE, TEMPLATE_TEXT, "il modello")
        dump = Path(tmp) / "pages.xml"
        titles = [f"Convenzione {i:03d}" for i in range(1, n + 1)]
        dump.write_text(
            export_xml([(t, page_text(i, rng)) for i, t in enumerate(titles, 1)], datetime.now(UTC) - timedelta(minutes=5)),
            encoding="utf-8",
        )
        wiki.import_xml(dump, rebuild_recentchanges=True, run_jobs=True)
        listed = len(wiki.admin.embeddedin(TEMPLATE))
        setup_seconds = time.monotonic() - t0
        if listed != n:
            raise RuntimeError(f"the wiki lists {listed} pages transcluding {TEMPLATE}, expected {n}")

        state = Path(tmp) / "state.sqlite"
        settings = ClientSettings(api_url=wiki.api_url, contact="benchmarks/sync_requests.py", deadline=120.0)
        log = ServerLog(wiki)

        def run(**options):
            client = WikiClient(settings)
            log.start()
            t = time.monotonic()
            with StateStore(state) as store:
                report = ApiSync(client, store, SyncSettings(**options)).run()
                pages = len(store.pages())
            return report, client.requests, log.count(), time.monotonic() - t, pages

        full, full_requests, full_server, full_seconds, full_pages = run()
        idle, idle_requests, idle_server, idle_seconds, _ = run()
        check, check_requests, check_server, check_seconds, _ = run(info_check_every=timedelta(0))

        full_target = math.ceil(n / 50) + 3
        idle_target = 3
        print(f"sync request benchmark: real MediaWiki (php -S, SQLite), {n} convention pages")
        print(f"  setup (import {n} pages, rebuild recent changes, run jobs): {setup_seconds:.1f} s")
        print(
            f"  full sync:        {full_requests:3d} API requests (server saw {full_server}), "
            f"{full_pages} pages stored, mode {full.mode}, {full_seconds:.2f} s   "
            f"target <= ceil({n}/50)+3 = {full_target}: {verdict(full_requests, full_target)}"
        )
        print(
            f"  idle incremental: {idle_requests:3d} API requests (server saw {idle_server}), "
            f"mode {idle.mode}, {idle_seconds:.2f} s   target <= {idle_target}: {verdict(idle_requests, idle_target)}"
        )
        print(
            f"  idle incremental with the prop=info check: {check_requests} API requests (server saw {check_server}), "
            f"mode {check.mode}, {check_seconds:.2f} s   target <= {idle_target}: {verdict(check_requests, idle_target)}"
        )
        problems = []
        if full_pages != n or full.mode != "full":
            problems.append(f"the full sync stored {full_pages} pages in mode {full.mode}")
        if (idle.mode, check.mode) != ("incremental", "incremental") or idle.fetched or check.fetched:
            problems.append("an idle run was not an incremental run that fetched nothing")
        if (full_requests, idle_requests, check_requests) != (full_server, idle_server, check_server):
            problems.append("the client's count and the server's differ")
        for problem in problems:
            print(f"  NOTE: {problem}")
        print(f"  total {time.monotonic() - started:.1f} s")
    signal.alarm(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
