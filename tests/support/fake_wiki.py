"""A tiny in-memory api.php for `responses`: enough of the Action API for sync's requests,
plus a fault schedule (maxlag, 429, 503, timeouts, garbage) that a real server will not
produce on demand. The real-server tests use a real MediaWiki instead (tests/support/wiki_server.py)."""

from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import requests
import responses

API = "http://wiki.test/w/api.php"
TEMPLATE = "Template:Convenzione"


def convention_text(dsl: str, extra: str = "") -> str:
    return f"Testo.\n{{{{Convenzione\n|nome=X\n|shape_constraints={dsl}\n}}}}\n{extra}"


@dataclass
class FakePage:
    page_id: int
    title: str
    revid: int
    text: str
    timestamp: str = "2026-11-01T10:00:00Z"
    ns: int = 0
    #: (namespace, title) of the redirects to this page (`prop=redirects`).
    redirects: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class FakeWiki:
    pages: dict[int, FakePage] = field(default_factory=dict)
    recent: list[dict[str, Any]] = field(default_factory=list)
    logs: list[dict[str, Any]] = field(default_factory=list)
    #: Faults to answer with, one per request, before answering normally.
    faults: deque[Any] = field(default_factory=deque)
    calls: list[dict[str, str]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    batch_limit: int = 50
    #: When set, content of the first page of a batch arrives without its templates, which
    #: come in a second response (as MediaWiki does when a result is too large).
    split_batches: bool = False

    def add(self, page_id: int, title: str, text: str, revid: int | None = None) -> FakePage:
        page = FakePage(page_id, title, revid or page_id * 10, text)
        self.pages[page_id] = page
        return page

    def install(self, mock: responses.RequestsMock) -> None:
        mock.add_callback(responses.GET, API, callback=self._answer)
        mock.add_callback(responses.POST, API, callback=self._answer)

    # -- answering ---------------------------------------------------------------------------

    def _answer(self, request: requests.PreparedRequest) -> tuple[int, dict[str, str], str]:
        params = dict(parse_qsl(urlsplit(request.url).query))
        if request.body:
            body = request.body if isinstance(request.body, str) else request.body.decode()
            params.update(dict(parse_qsl(body)))
        self.calls.append(params)
        self.headers.append(dict(request.headers))
        if self.faults:
            fault = self.faults.popleft()
            if isinstance(fault, Exception):
                raise fault
            return fault
        return 200, {"Content-Type": "application/json"}, json.dumps(self._query(params))

    def _embedding(self) -> list[FakePage]:
        return [p for p in sorted(self.pages.values(), key=lambda p: p.page_id) if "{{Convenzione" in p.text]

    def _page_json(self, page: FakePage, params: dict[str, str], with_templates: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"pageid": page.page_id, "ns": page.ns, "title": page.title}
        props = params.get("prop", "").split("|")
        if "revisions" in props:
            out["revisions"] = [
                {"revid": page.revid, "timestamp": page.timestamp, "slots": {"main": {"contentmodel": "wikitext", "content": page.text}}}
            ]
        if "templates" in props and with_templates and "{{Convenzione" in page.text:
            out["templates"] = [{"ns": 10, "title": TEMPLATE}]
        if "info" in props:
            out["lastrevid"] = page.revid
        if "redirects" in props and page.redirects:
            out["redirects"] = [{"ns": ns, "title": title} for ns, title in page.redirects]
        return out

    def _title_json(self, title: str, params: dict[str, str]) -> dict[str, Any]:
        """A title asked for: the page, or a missing one; the template always exists (pages
        use it), and a category has members when a page's text names it."""
        page = next((p for p in self.pages.values() if p.title == title), None)
        if page is not None:
            return self._page_json(page, params)
        if title == TEMPLATE:
            return {"pageid": 99999, "ns": 10, "title": title}
        namespace = {"Template": 10, "Categoria": 14}.get(title.split(":")[0], 0)
        out: dict[str, Any] = {"ns": namespace, "title": title, "missing": True}
        if namespace == 14 and "categoryinfo" in params.get("prop", ""):
            members = sum(1 for p in self.pages.values() if f"[[{title}]]" in p.text)
            out["categoryinfo"] = {"size": members, "pages": members, "files": 0, "subcats": 0}
        return out

    def _query(self, params: dict[str, str]) -> dict[str, Any]:
        query: dict[str, Any] = {}
        result: dict[str, Any] = {"batchcomplete": True, "query": query}
        if "siteinfo" in params.get("meta", ""):
            query["general"] = {"sitename": "Fake", "articlepath": "/wiki/$1", "server": "http://wiki.test", "scriptpath": "/w", "time": "2026-11-29T10:00:00Z"}
            query["namespaces"] = {
                "0": {"id": 0, "name": "", "case": "first-letter"},
                "10": {"id": 10, "name": "Template", "canonical": "Template", "case": "first-letter"},
                "14": {"id": 14, "name": "Categoria", "canonical": "Category", "case": "first-letter"},
            }
            query["namespacealiases"] = []
        lists = params.get("list", "").split("|")
        if "recentchanges" in lists:
            entries = sorted(self.recent, key=lambda e: e["rcid"])
            if params.get("rcdir") == "newer":
                entries = [e for e in entries if e["timestamp"] >= params["rcstart"]]
            else:
                entries = entries[::-1][: int(params.get("rclimit", 10))]
            query["recentchanges"] = entries
        if "logevents" in lists:
            entries = sorted(self.logs, key=lambda e: e["logid"])
            if params.get("ledir") == "newer":
                entries = [e for e in entries if e["timestamp"] >= params["lestart"]]
            else:
                entries = entries[::-1][: int(params.get("lelimit", 10))]
            query["logevents"] = entries
        if "allpages" in lists:
            namespace = int(params.get("apnamespace", 0))
            query["allpages"] = [{"ns": p.ns, "title": p.title} for p in self.pages.values() if p.ns == namespace]
        if "allcategories" in lists:
            named = {c for p in self.pages.values() for c in re.findall(r"\[\[Categoria:([^\]|]+)", p.text)}
            query["allcategories"] = [{"category": c} for c in sorted(named)]
        if params.get("generator") == "embeddedin":
            limit = self.batch_limit if params.get("geilimit") == "max" else min(int(params["geilimit"]), self.batch_limit)
            start = int(params.get("geicontinue", "0"))
            embedding = self._embedding() if params.get("geititle", TEMPLATE) == TEMPLATE else []
            chosen = embedding[start : start + limit]
            more = start + limit < len(embedding)
            if self.split_batches and "rvcontinue" not in params and chosen:
                query["pages"] = [self._page_json(p, params) for p in chosen[:-1]] + [{"pageid": chosen[-1].page_id, "ns": 0, "title": chosen[-1].title}]
                result["continue"] = {"rvcontinue": str(chosen[-1].page_id), "geicontinue": str(start), "continue": "gcontinue||"}
                result.pop("batchcomplete")
                return result
            if self.split_batches and "rvcontinue" in params:
                last = self.pages[int(params["rvcontinue"])]
                query["pages"] = [{"pageid": p.page_id, "ns": 0, "title": p.title} for p in chosen[:-1]] + [self._page_json(last, params)]
            else:
                query["pages"] = [self._page_json(p, params) for p in chosen]
            if more:
                result["continue"] = {"geicontinue": str(start + limit), "continue": "gcontinue||"}
        if "pageids" in params:
            out = []
            for pid in params["pageids"].split("|"):
                page = self.pages.get(int(pid))
                out.append(self._page_json(page, params) if page else {"pageid": int(pid), "missing": True})
            query["pages"] = out
        if "titles" in params:
            out = []
            for title in params["titles"].split("|"):
                out.append(self._title_json(title, params))
            query["pages"] = out
        return result

    # -- wiki events ---------------------------------------------------------------------------

    def _next_rcid(self) -> int:
        return max([e["rcid"] for e in self.recent] + [100]) + 1

    def _next_logid(self) -> int:
        return max([e["logid"] for e in self.logs] + [500]) + 1

    def edit(self, page_id: int, text: str, timestamp: str = "2026-11-29T11:00:00Z") -> None:
        page = self.pages[page_id]
        page.revid += 1
        page.text = text
        page.timestamp = timestamp
        self.recent.append({"type": "edit", "rcid": self._next_rcid(), "pageid": page_id, "title": page.title, "timestamp": timestamp})

    def create(self, page_id: int, title: str, text: str, timestamp: str = "2026-11-29T11:00:00Z") -> None:
        self.add(page_id, title, text)
        self.pages[page_id].timestamp = timestamp
        self.recent.append({"type": "new", "rcid": self._next_rcid(), "pageid": page_id, "title": title, "timestamp": timestamp})

    def delete(self, page_id: int, timestamp: str = "2026-11-29T11:00:00Z") -> None:
        page = self.pages.pop(page_id)
        self.recent.append({"type": "log", "rcid": self._next_rcid(), "pageid": 0, "title": page.title, "timestamp": timestamp, "logtype": "delete", "logaction": "delete"})
        self.logs.append({"logid": self._next_logid(), "type": "delete", "action": "delete", "title": page.title, "logpage": page_id, "timestamp": timestamp, "params": {}})

    def move(self, page_id: int, new_title: str, timestamp: str = "2026-11-29T11:00:00Z") -> None:
        page = self.pages[page_id]
        old = page.title
        page.title = new_title
        page.revid += 1
        self.recent.append({"type": "log", "rcid": self._next_rcid(), "pageid": page_id, "title": old, "timestamp": timestamp, "logtype": "move", "logaction": "move"})
        self.logs.append({"logid": self._next_logid(), "type": "move", "action": "move", "title": old, "logpage": page_id, "timestamp": timestamp, "params": {"target_ns": 0, "target_title": new_title}})


def json_error(code: str, info: str = "", status: int = 200, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    return status, {"Content-Type": "application/json", **(headers or {})}, json.dumps({"error": {"code": code, "info": info}})


def http_status(status: int, headers: dict[str, str] | None = None, body: str = "busy") -> tuple[int, dict[str, str], str]:
    return status, {"Content-Type": "text/plain", **(headers or {})}, body
