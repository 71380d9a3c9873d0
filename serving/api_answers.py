"""`api.php` answered over one mirror folder (SEMANTICS 4 is the layout it reads): get,
list and listall from the mirror's files, byte for byte, and `validate` answered live with
`dsl.validate_document(dsl.parse(dsl_value.strip(" \\t\\r\\n")))`.

Errors are MediaWiki's (HTTP 200, `{"error": {"code", "info", "*"}}` or the form the
request asks, a `MediaWiki-API-Error` header), from the catalogue in `api_rules` that the
nginx drop-in is generated from too; `api_format` puts every answer as MediaWiki does.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from urllib.parse import unquote_plus

from bridgeshape_mirror import dsl

from . import api_format
from . import api_rules as rules
from .api_rules import JSON_TYPE, ApiError, json_bytes
from .siteinfo import SITEINFO_FILE, SiteCache
from .title_lookup import api_title, decode_value, file_name


@dataclass(frozen=True)
class Response:
    status: int
    content_type: str
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()
    #: When what it says last changed (a file's mtime); None: when the mirror was built.
    modified: float | None = None


@dataclass(frozen=True)
class _Failure:
    """An error to answer, with the value its text may echo."""

    error: ApiError
    value: str | None = None


def _error(error: ApiError, value: str | None = None) -> _Failure:
    return _Failure(error, value)


def _file(path: bytes) -> Response | None:
    try:
        with open(path, "rb") as handle:
            return Response(200, JSON_TYPE, handle.read(), modified=os.fstat(handle.fileno()).st_mtime)
    except OSError:  # not found, a folder, a name too long...: no such page
        return None


class Api:
    """The `api.php` answers over one mirror folder; `live` adds `validate`."""

    def __init__(self, root: str | os.PathLike[str], *, live: bool = True):
        self.root = os.fsencode(os.fspath(root))
        self.live = live
        self.site = SiteCache(self.root)

    def built_at(self) -> float | None:
        """When the mirror was last published (its list's mtime), for answers made of no file."""
        try:
            return os.stat(self.root + b"/api/list.json").st_mtime
        except OSError:
            return None

    def answer(self, query: str) -> Response:
        """The answer to `query` as MediaWiki puts it (`api_format`): errors in the asked
        format with the wiki's docref, a file with the warnings and echoes before it, the
        HTML page when no `format` is given."""
        args = rules.php_args(query)
        site = self.site.get()
        output, bad_output, bad_value = api_format.read_output(args)
        refused = _error(bad_output, bad_value) if bad_output is not None else None
        found = self._route(args, query, refused)
        if isinstance(found, _Failure):
            document = api_format.error_document(found.error, found.value, output, api_format.docref(site))
            response = Response(200, JSON_TYPE, api_format.dumps(document, output), (("MediaWiki-API-Error", found.error.code),))
        elif found.status == 200 and found.content_type == JSON_TYPE:
            warned = api_format.unrecognized(query, args.get("action", ""))
            response = replace(found, body=api_format.decorate(found.body, output, warned))
        else:
            return found
        if output.html:
            response = replace(response, content_type=api_format.HTML_TYPE, body=api_format.jsonfm_page(response.body, site))
        return response

    def _route(self, args: dict[str, str], query: str, bad_output: _Failure | None) -> Response | _Failure:
        """The action's answer; `bad_output`: an error in the answer's form, which MediaWiki
        gives once the action is known."""
        action = args.get("action", "")
        if action == "":
            return _error(rules.MISSING_ACTION)
        if action not in ("query", "bridgeshape"):
            return _error(rules.BAD_ACTION, action)
        if bad_output is not None:
            return bad_output
        asserted = api_format.assert_error(args)
        if asserted is not None:
            return _error(*asserted)
        if action == "query" and rules.asks_siteinfo(args.get("meta", "")):
            return self._list(SITEINFO_FILE.removeprefix("api/"))
        if action != "bridgeshape":
            return _error(rules.BAD_ACTION, action)
        shapeaction = args.get("shapeaction", "")
        if shapeaction == "":
            return _error(rules.MISSING_SHAPEACTION)
        if shapeaction == "list":
            return self._list("list.json")
        if shapeaction == "listall":
            return self._list("listall.json")
        if shapeaction == "get":
            return self._get(args, query)
        if shapeaction == "validate":
            return self._validate(args)
        return _error(rules.BAD_SHAPEACTION, shapeaction)

    def _list(self, name: str) -> Response:
        found = _file(self.root + b"/api/" + name.encode())
        if found is None:
            return Response(404, "text/plain; charset=utf-8", b"the mirror has no " + name.encode() + b" (not built yet?)\n")
        return found

    def _get(self, args: dict[str, str], query: str) -> Response | _Failure:
        title = rules.last_arg(query, "title")
        pageid = args.get("pageid", "")
        if title and pageid:
            return _error(rules.TITLE_AND_PAGEID)
        if pageid:
            rule = rules.read_pageid(pageid)
            if rule.number is not None:
                found = _file(self.root + b"/api/get/pageid/" + rule.number.encode("ascii") + b".json")
                return found or _error(rules.NO_SUCH_PAGEID, rule.number)
            if rule.missing is not None:
                return _error(rules.NO_SUCH_PAGEID, rule.missing)
            return _error(rules.BAD_PAGEID, pageid)
        if title:
            text = decode_value(title)
            normalised = api_title(text, self.site.get())
            if normalised is None:
                return _error(rules.INVALID_TITLE, text)
            return _file(self.root + b"/api/get/title/" + file_name(normalised) + b".json") or _error(rules.MISSING_TITLE)
        return _error(rules.MISSING_TITLE_OR_PAGEID)

    def _validate(self, args: dict[str, str]) -> Response | _Failure:
        if not self.live:
            return _error(rules.VALIDATE_NEEDS_SERVICE)
        if "dsl" not in args:
            return _error(rules.MISSING_DSL)
        raw = unquote_plus(args["dsl"], encoding="utf-8", errors="replace").strip(" \t\r\n")
        return Response(200, JSON_TYPE, json_bytes(dsl.validate_document(dsl.parse(raw))))
