"""Build times of hostile pages beside a normal build (issue 18): one page of 2,000
scenarios and one of 100 KB of broken DSL, each in a state store made from an XML export
this script writes, measured side by side with the bundled sample wiki's build, and the
load average (this machine's other work shows in the figures).

Before the DSL limits these builds ran for minutes (2,000 scenarios dealt and highlighted)
or days (100 KB of `//`: every piece compared with every error); now each hostile page is
one `limit-exceeded` error in the report, so the build costs about a normal one.

Run: .venv/bin/python benchmarks/hostile_build_bench.py [--deals N] [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from xml.sax.saxutils import escape

from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.store.state import StateStore
from bridgeshape_mirror.sync.dump import sync_from_dump
from bridgeshape_mirror.sync.syncer import SyncSettings

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sample-wiki.xml"

HOSTILE = {
    "2,000 scenarios": " // ".join(f"S{n}: opener H:5+ hcp:12-14" for n in range(2000)),
    "100 KB broken": "opener H:5+ // " + "// " * 33_000 + "zz",
}


def hostile_export(path: Path, title: str, raw: str) -> None:
    """An export of the sample's shape (one convention page), whose DSL is `raw`."""
    text = "{{Convenzione\n|nome=" + title + "\n|shape_constraints=" + raw + "\n}}"
    path.write_text(
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="it">\n'
        "  <siteinfo><sitename>Hostile</sitename><base>http://127.0.0.1:8080/index.php/Main</base>"
        '<case>first-letter</case><namespaces><namespace key="0" case="first-letter" />'
        '<namespace key="10" case="first-letter">Template</namespace></namespaces></siteinfo>\n'
        f"  <page><title>{escape(title)}</title><ns>0</ns><id>1</id><revision><id>100</id>"
        "<timestamp>2026-11-29T10:00:00Z</timestamp><model>wikitext</model><format>text/x-wiki</format>"
        f'<text xml:space="preserve">{escape(text)}</text></revision></page>\n'
        "</mediawiki>\n",
        encoding="utf-8",
    )


def timed_build(export: Path, folder: Path, deals: int) -> tuple[float, dict]:
    state, out = folder / "state.sqlite", folder / "output"
    with StateStore(state) as store:
        sync_from_dump(export, store, SyncSettings())
    started = time.perf_counter()
    report = build(state, BuildSettings(out=out, deals=deals, dd_budget=0))  # double dummy: dd_bench.py
    seconds = time.perf_counter() - started
    broken = json.loads((out / "report/report.json").read_text(encoding="utf-8"))["broken"]
    return seconds, {"statuses": report.statuses, "errors": [e["code"] for row in broken for e in row["errors"]][:3]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        exports = {"sample wiki (normal)": SAMPLE}
        for name, raw in HOSTILE.items():
            exports[name] = Path(tmp) / f"{len(exports)}.xml"
            hostile_export(exports[name], f"Hostile {name}", raw)
            print(f"{name}: DSL of {len(raw):,} characters")
        times: dict[str, list[float]] = {name: [] for name in exports}
        for round_ in range(args.rounds):
            for name, export in exports.items():  # side by side: each round builds all three
                folder = Path(tmp) / f"r{round_}-{len(times[name])}-{abs(hash(name))}"
                folder.mkdir()
                seconds, what = timed_build(export, folder, args.deals)
                times[name].append(seconds)
                if round_ == 0:
                    print(f"  {name}: {what}")
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"\nbuild seconds, {args.rounds} rounds, {args.deals} deals per scenario (load average {load}):")
        normal = min(times["sample wiki (normal)"])
        for name, values in times.items():
            best = min(values)
            print(f"  {name:22} best {best:6.2f} s  all {' '.join(f'{v:.2f}' for v in values)}  ratio to normal {best / normal:.2f}x")


if __name__ == "__main__":
    main()
