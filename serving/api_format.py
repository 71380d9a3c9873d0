"""How MediaWiki 1.39's api.php puts an answer (ApiMain, ApiErrorFormatter, ApiFormatJson),
for what a mirror answers: the error formats (`errorformat`, `formatversion`), the docref
text every error carries, `requestid` and `curtimestamp` echoed, the "Unrecognized
parameter" warning, `assert` for the anonymous user a mirror always answers, and the HTML
page (`jsonfm`) a request without `format` gets.

`serve` applies all of it; the nginx drop-in the parts a static answer can hold (the docref
and `assert`; docs/OPERATING.md lists the rest).
"""

from __future__ import annotations

import html
import json
import re
import time
from dataclasses import dataclass
from urllib.parse import unquote_plus

from bridgeshape_mirror.store.model import SiteInfo

from .api_rules import ApiError, MODULE_MAIN

#: MediaWiki's `api-usage-docref` and `api-usage-mailinglist-ref` (English), `{api}` its URL.
DOCREF = (
    "See {api} for API usage. Subscribe to the mediawiki-api-announce mailing list at "
    "&lt;https://lists.wikimedia.org/postorius/lists/mediawiki-api-announce.lists.wikimedia.org/&gt; "
    "for notice of API deprecations and breaking changes."
)
#: `errorformat` values; `bc` is the old format (`{"error": {...}}`), the others the new one.
ERROR_FORMATS = ("bc", "plaintext", "wikitext", "html", "raw", "none")
#: What ApiMain and ApiFormatJson read, and the modules a mirror answers: any other name is
#: "unrecognized". (The query module's and siteinfo's, userinfo's for `meta=siteinfo|userinfo`.)
MAIN_PARAMETERS = frozenset((
    "action", "format", "maxlag", "smaxage", "maxage", "assert", "assertuser", "requestid", "servedby",
    "curtimestamp", "responselanginfo", "origin", "uselang", "variant", "errorformat", "errorlang",
    "errorsuselocal", "callback", "utf8", "ascii", "formatversion",
))
MODULE_PARAMETERS = {
    "bridgeshape": frozenset(("shapeaction", "title", "pageid", "dsl")),
    "query": frozenset((
        "prop", "list", "meta", "indexpageids", "export", "exportnowrap", "exportschema", "iwurl", "continue",
        "rawcontinue", "titles", "pageids", "revids", "generator", "redirects", "converttitles",
        "siprop", "sifilteriw", "sishowalldb", "sinumberingroup", "siinlanguagecode", "uiprop", "uiattachedwiki",
    )),
}
HTML_TYPE = "text/html; charset=UTF-8"

BAD_ERRORFORMAT = ApiError(
    "badvalue", 'Unrecognized value for parameter "errorformat": {value}.', 'Unrecognized value for parameter "errorformat".',
    module=MODULE_MAIN,
)
BAD_ASSERT = ApiError(
    "badvalue", 'Unrecognized value for parameter "assert": {value}.', 'Unrecognized value for parameter "assert".',
    module=MODULE_MAIN,
)
#: What MediaWiki answers an anonymous client's `assert=user` / `assert=bot`.
ASSERT_USER = ApiError("assertuserfailed", "You are no longer logged in, so the action could not be completed.", module=MODULE_MAIN)
ASSERT_BOT = ApiError("assertbotfailed", 'You do not have the "bot" right, so the action could not be completed.', module=MODULE_MAIN)
ASSERT_NAMED_USER = ApiError(
    "assertnameduserfailed", 'You are no longer logged in as "{value}", so the action could not be completed.', module=MODULE_MAIN,
    echo_any=True,
)
ASSERTS = {"user": ASSERT_USER, "bot": ASSERT_BOT}


def docref(site: SiteInfo) -> str:
    """The docref text of the wiki `site` (its api.php, as MediaWiki names it)."""
    return DOCREF.format(api=f"{site.server}{site.script_path}/api.php")


@dataclass(frozen=True)
class Output:
    """What a request asks of its answer's form."""

    errorformat: str = "bc"
    formatversion: int = 1
    #: Decoded; None when not asked for ("" is echoed: MediaWiki echoes an empty one).
    requestid: str | None = None
    curtimestamp: bool = False
    #: No `format` (or `jsonfm`): MediaWiki's HTML page around the pretty-printed JSON.
    html: bool = False
    #: Non-ASCII as it is (`utf8`), else `\\uXXXX`, as MediaWiki's JSON.
    utf8: bool = False


def _decoded(raw: str) -> str:
    return unquote_plus(raw, encoding="utf-8", errors="replace")


def read_output(args: dict[str, str]) -> tuple[Output, ApiError | None, str | None]:
    """The answer's form asked by `args` (raw, PHP's reading), and an error in it (with the
    value it echoes), or None."""
    raw_format = _decoded(args.get("errorformat", "")) or "bc"
    output = Output(
        errorformat=raw_format if raw_format in ERROR_FORMATS else "bc",
        formatversion=2 if _decoded(args.get("formatversion", "")) in ("2", "latest") else 1,
        requestid=_decoded(args["requestid"]) if "requestid" in args else None,
        curtimestamp="curtimestamp" in args,
        html=_decoded(args.get("format", "")) in ("", "jsonfm"),
        utf8="utf8" in args,
    )
    if raw_format not in ERROR_FORMATS:
        return output, BAD_ERRORFORMAT, args.get("errorformat")
    return output, None, None


def assert_error(args: dict[str, str]) -> tuple[ApiError, str] | None:
    """The error `assert`/`assertuser` give an anonymous client, with its value, or None."""
    wanted = _decoded(args.get("assert", ""))
    if wanted and wanted != "anon":
        return (ASSERTS[wanted], wanted) if wanted in ASSERTS else (BAD_ASSERT, args["assert"])
    user = _decoded(args.get("assertuser", ""))
    if user:
        return ASSERT_NAMED_USER, user
    return None


def unrecognized(query: str, action: str) -> tuple[str, ...]:
    """The parameter names MediaWiki reads for none of `action`'s modules, in order, as PHP
    names them (`.` and spaces as `_`, `name[...]` as `name`)."""
    known = MAIN_PARAMETERS | MODULE_PARAMETERS.get(action, frozenset())
    names: list[str] = []
    for part in query.split("&"):
        if not part:
            continue
        name = _decoded(part.partition("=")[0]).split("[", 1)[0].replace(".", "_").replace(" ", "_")
        if name and name not in known and name not in names:
            names.append(name)
    return tuple(names)


def _timestamp(now: float | None) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() if now is None else now))


def _echoes(output: Output, now: float | None) -> dict[str, object]:
    echoed: dict[str, object] = {}
    if output.requestid is not None:
        echoed["requestid"] = output.requestid
    if output.curtimestamp:
        echoed["curtimestamp"] = _timestamp(now)
    return echoed


def error_document(error: ApiError, value: str | None, output: Output, reference: str, now: float | None = None) -> dict[str, object]:
    """`error` as MediaWiki puts it in `output`'s format (`raw` is given as `plaintext`: the
    mirror has no message keys), with its docref, then the echoed requestid and curtimestamp."""
    info = error.info_text(value)
    docref_key = "docref" if output.formatversion == 2 else "*"
    document: dict[str, object]
    if output.errorformat == "bc":
        document = {"error": {"code": error.code, "info": info, docref_key: reference}}
    else:
        entry: dict[str, object] = {"code": error.code}
        if output.errorformat != "none":
            if output.formatversion == 2:
                entry["text"] = info
            else:
                entry["module"] = error.module
                entry["*"] = info
        entry.setdefault("module", error.module)
        document = {"errors": [entry], docref_key: reference}
    document.update(_echoes(output, now))
    return document


def warnings_member(names: tuple[str, ...], output: Output) -> object:
    """The `warnings` value for unrecognized `names`."""
    text = ("Unrecognized parameter: " if len(names) == 1 else "Unrecognized parameters: ") + ", ".join(names) + "."
    if output.errorformat == "bc":
        return {"main": {"warnings" if output.formatversion == 2 else "*": text}}
    entry: dict[str, object] = {"code": "unrecognizedparams"}
    if output.errorformat != "none":
        if output.formatversion == 2:
            entry["text"] = text
        else:
            entry["module"] = "main"
            entry["*"] = text
    entry.setdefault("module", "main")
    return [entry]


def dumps(document: object, output: Output) -> bytes:
    return json.dumps(document, ensure_ascii=not output.utf8, separators=(",", ":")).encode("utf-8")


def _member(name: str, value: object, output: Output) -> bytes:
    return json.dumps(name).encode() + b":" + dumps(value, output)


#: The query module's answer opens with `batchcomplete` (whatever the file's spacing).
_QUERY_HEAD = re.compile(rb'^\s*\{\s*"batchcomplete"\s*:\s*""\s*,')


def decorate(body: bytes, output: Output, warned: tuple[str, ...], now: float | None = None) -> bytes:
    """A mirror file's JSON object (`body`, as it is) with what MediaWiki puts before a
    module's answer: the warnings first, then requestid and curtimestamp (after the query
    module's `batchcomplete`, which it puts on top)."""
    first = [_member("warnings", warnings_member(warned, output), output)] if warned else []
    echoes = [_member(name, value, output) for name, value in _echoes(output, now).items()]
    if not first and not echoes:
        return body
    query = _QUERY_HEAD.match(body)
    if query:
        head, rest = [*first, b'"batchcomplete":""', *echoes], body[query.end():]
        return b"{" + b",".join(head) + b"," + rest
    stripped = body.lstrip()
    if not stripped.startswith(b"{"):
        return body
    rest = stripped[1:]
    separator = b"" if rest.lstrip().startswith(b"}") else b","
    return b"{" + b",".join([*first, *echoes]) + separator + rest


def jsonfm_page(body: bytes, site: SiteInfo) -> bytes:
    """MediaWiki's HTML page of a JSON answer (`format` missing, or `jsonfm`): the answer
    pretty-printed, escaped, in `<pre class="api-pretty-content">`; the skin's scripts and
    styles, which a mirror does not have, left out."""
    try:
        pretty = json.dumps(json.loads(body), indent=4)
    except ValueError:
        pretty = body.decode("utf-8", errors="replace")
    sitename = html.escape(site.sitename or "MediaWiki")
    page = (
        '<!DOCTYPE html>\n<html class="client-nojs" lang="en" dir="ltr">\n<head>\n<meta charset="UTF-8"/>\n'
        f"<title>MediaWiki API result - {sitename}</title>\n"
        '<meta name="robots" content="noindex,nofollow"/>\n</head>\n'
        '<body class="mediawiki ltr sitedir-ltr ns--1 ns-special mw-special-ApiHelp skin-apioutput action-view">'
        '<div class="mw-body" role="main">\n\t<h1 id="firstHeading">MediaWiki API result</h1>\n'
        '\t<div class="mw-body-content">\n\t\t<div id="mw-content-text" class="mw-body-content">'
        '<div class="api-pretty-header"><p>This is the HTML representation of the JSON format. '
        "HTML is good for debugging, but is unsuitable for application use.\n</p><p>Specify the "
        "<var>format</var> parameter to change the output format. To see the non-HTML representation "
        "of the JSON format, set <kbd>format=json</kbd>.\n</p></div>"
        f'<pre class="api-pretty-content">{html.escape(pretty, quote=False)}</pre></div>\n\t</div>\n</div>\n</body>\n</html>\n'
    )
    return page.encode("utf-8")
