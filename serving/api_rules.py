"""The BridgeShape API's rules, as both servers apply them: MediaWiki's error catalogue,
how a query string's parameters are read, and which titles and page ids are good.

The nginx drop-in (`serving.nginx`) embeds the regular expressions below in the generated
configuration, so they stay plain PCRE-compatible syntax, and they are applied to the raw
(still percent-encoded) value exactly as nginx sees it.

Parameters are read as PHP reads a query string, in both servers: the last occurrence of
a name counts, names match exactly (nginx: `last_arg_re`, not its `$arg_NAME`, which takes
the first in any case), an empty value counts as absent. A title is then read as MediaWiki
reads it (`serving.title_lookup`; nginx: the regular expressions below and the build's
alias files).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from bridgeshape_mirror.sync.titles import SPACE_CHARACTERS

#: Paths that answer like the wiki's api.php (a wiki lives at /api.php or /w/api.php).
API_PATHS = ("/api.php", "/w/api.php")
JSON_TYPE = "application/json; charset=utf-8"
#: The largest form body a POST may carry (api.php parameters, no uploads), in both servers.
MAX_FORM_BODY = 1 << 20

#: A raw parameter value that may be echoed in an error's info (JSON-safe, URL-safe).
ECHO_SAFE_RE = r"^[A-Za-z0-9_.-]{1,64}$"
#: A raw title with a character MediaWiki forbids (`# < > [ ] | { }`), raw or encoded, or
#: an encoded control character. Case-insensitive.
TITLE_FORBIDDEN_RE = r"[#<>\[\]|{}]|%(2[3]|3[CE]|5[BD]|7[BCDF]|[01][0-9A-F])"
#: An encoded `%` followed by two hex digits: the title would contain `%XX`, which
#: MediaWiki refuses. Case-insensitive.
TITLE_PERCENT_RE = r"%25[0-9A-F]{2}"


def _wide_space_spellings() -> str:
    """MediaWiki's space characters beyond ASCII, percent-encoded (any hex case) or as raw
    UTF-8 bytes (PCRE `\\xHH`: nginx matches bytes)."""
    encoded, raw = [], []
    for char in SPACE_CHARACTERS:
        data = char.encode("utf-8")
        if len(data) > 1:
            encoded.append("".join(f"%{b:02X}" for b in data))
            raw.append("".join(f"\\x{b:02X}" for b in data))
    return "(?i:" + "|".join(encoded) + ")|" + "|".join(raw)


#: A space beyond ASCII (no-break, ideographic...), made a `+` before the spaces are read.
WIDE_SPACE_TOKEN_RE = _wide_space_spellings()
#: What spells a space in a raw query value (the file names use `_`), `_` itself aside.
SPACE_TOKEN_RE = r"\+|%20|%5[Ff]"
#: Two underscores or more: one, once the spaces are underscores.
UNDERSCORE_RUN_RE = "__+"
#: More than 255 bytes once decoded (a raw byte or a `%XX` each): too long for a MediaWiki
#: title. Applied after spaces are collapsed and trimmed.
TITLE_TOO_LONG_RE = r"^(?:%[0-9A-Fa-f]{2}|[^%]){256}"
#: A `#fragment` (only encoded: a raw `#` ends the URL's query), dropped as MediaWiki does.
#: Case-insensitive.
TITLE_FRAGMENT_RE = r"^(.*?)%23"
#: Underscores at either end: the trimmed title is group 1 (after spaces became `_`).
TITLE_TRIM_RE = r"^_*(.*?)_*$"
#: A leading `:` (the main namespace), and the spaces after it. Case-insensitive.
TITLE_LEADING_COLON_RE = r"^(?::|%3A)_*(.*)$"
#: After spaces became `_`: a title made of nothing, or a `.`/`..` path segment.
TITLE_EMPTY_RE = r"^_*$"
TITLE_DOT_SEGMENT_RE = r"(^|/|%2F)(\.|%2E){1,2}(/|%2F|$)"
#: A page id: digits (leading zeros ignored), or a negative number (never a page).
PAGEID_RE = r"^0*([0-9]+)$"
PAGEID_NEGATIVE_RE = r"^-0*([1-9][0-9]*)$"
PAGEID_NEGATIVE_ZERO_RE = r"^-0+$"

_ECHO_SAFE = re.compile(ECHO_SAFE_RE)
_PAGEID = re.compile(PAGEID_RE)
_PAGEID_NEGATIVE = re.compile(PAGEID_NEGATIVE_RE)
_PAGEID_NEGATIVE_ZERO = re.compile(PAGEID_NEGATIVE_ZERO_RE)


#: The module an error of the main module (ApiMain) names in the new error format.
MODULE_MAIN = "main"


@dataclass(frozen=True)
class ApiError:
    """One MediaWiki-style error. `info` may hold one `{value}` (a parameter value, echoed
    only when it is ECHO_SAFE, or any decoded value with `echo_any`) or `{id}` (a page id);
    `info_without_value` is used otherwise. `module`: the API module that gives it."""

    code: str
    info: str
    info_without_value: str | None = None
    module: str = "bridgeshape"
    echo_any: bool = False

    def info_text(self, value: str | None = None) -> str:
        if "{value}" in self.info:
            if value is not None and (self.echo_any or _ECHO_SAFE.match(value)):
                return self.info.replace("{value}", value)
            return self.info_without_value or self.info
        if "{id}" in self.info:
            return self.info.replace("{id}", value or "")
        return self.info

    def document(self, value: str | None = None, docref: str | None = None) -> dict[str, dict[str, str]]:
        """The old (`bc`) format; with `docref`, MediaWiki's `"*"` text."""
        error = {"code": self.code, "info": self.info_text(value)}
        if docref is not None:
            error["*"] = docref
        return {"error": error}


# Codes and wordings are MediaWiki's own (api i18n, checked against MediaWiki 1.39).
MISSING_ACTION = ApiError("missingparam", 'The "action" parameter must be set.', module=MODULE_MAIN)
BAD_ACTION = ApiError(
    "badvalue", 'Unrecognized value for parameter "action": {value}.', 'Unrecognized value for parameter "action".',
    module=MODULE_MAIN,
)
MISSING_SHAPEACTION = ApiError("missingparam", 'The "shapeaction" parameter must be set.')
BAD_SHAPEACTION = ApiError(
    "badvalue",
    'Unrecognized value for parameter "shapeaction": {value}.',
    'Unrecognized value for parameter "shapeaction".',
)
MISSING_TITLE_OR_PAGEID = ApiError("missingparam", 'One of the parameters "title" and "pageid" is required.')
TITLE_AND_PAGEID = ApiError("invalidparammix", 'The parameters "title" and "pageid" can not be used together.')
BAD_PAGEID = ApiError(
    "badinteger",
    'Invalid value "{value}" for integer parameter "pageid".',
    'Invalid value for integer parameter "pageid".',
)
NO_SUCH_PAGEID = ApiError("nosuchpageid", "There is no page with ID {id}.")
MISSING_TITLE = ApiError("missingtitle", "The page you specified doesn't exist.")
#: The title as the client sent it, decoded (MediaWiki echoes any).
INVALID_TITLE = ApiError("invalidtitle", 'Bad title "{value}".', "Bad title.", echo_any=True)
MISSING_DSL = ApiError("missingparam", 'The "dsl" parameter must be set.')
#: The static mirror (nginx) reads no request body: a POST gets this, with 405.
STATIC_METHOD = ApiError(
    "badmethod",
    "This static mirror answers GET and HEAD only: send the parameters in the query string "
    '(or use the live service, "bridgeshape-mirror serve").',
    module=MODULE_MAIN,
)
#: The static mirror (nginx) cannot validate; `serve` can.
VALIDATE_NEEDS_SERVICE = ApiError(
    "moduledisabled",
    'The "validate" action needs the live service ("bridgeshape-mirror serve"); '
    "this static mirror answers get, list and listall only.",
)


def json_bytes(document: object) -> bytes:
    """Compact UTF-8 JSON, as MediaWiki's API prints it."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def php_args(query: str) -> dict[str, str]:
    """name (exact, still raw) -> raw value of its last occurrence, as PHP's `$_GET` (a name
    without `=` has the value "")."""
    args: dict[str, str] = {}
    for part in query.split("&"):
        if not part:
            continue
        name, _, value = part.partition("=")
        args[name] = value
    return args


def last_arg(query: str, name: str) -> str:
    """The raw value of the last `name=` (PHP's reading: the last of repeated parameters
    counts, names match exactly); "" when there is none."""
    found = ""
    for part in query.split("&"):
        key, _, value = part.partition("=")
        if key == name:
            found = value
    return found


def last_arg_re(name: str) -> str:
    """`$args` holding a last `name` (exact), its value group 1 (empty without `=`), as
    `last_arg` reads it."""
    escaped = re.escape(name)
    return rf"(?:^|&){escaped}(?:=([^&]*))?(?:&(?!{escaped}(?:[=&]|$))[^&]*)*$"


#: The parameters the snippet reads (the title apart, in the `get` location).
ROUTING_PARAMETERS = ("action", "shapeaction", "meta", "pageid", "origin", "callback", "assert", "errorformat", "formatversion")
LAST_TITLE_RE = last_arg_re("title")
#: The callback of a request to answer as JSONP: a name of the characters MediaWiki keeps
#: that are safe raw (group 1).
JSONP_CALLBACK_RE = r"^([A-Za-z0-9_.]{1,128})$"
#: A query with characters an SSI include's URI cannot carry raw (`"` ends it, `$` is a
#: variable, `\\` an escape, `>` may end the comment): answered as plain JSON.
JSONP_UNSAFE_ARGS_RE = r'["$\\>]'
#: `origin=*`, anonymous CORS (raw or encoded).
ORIGIN_ANONYMOUS_RE = r"^(?:\*|%2[Aa])$"
#: `meta` naming siteinfo among its `|`-separated values, raw or encoded.
META_SITEINFO_RE = r"^(?:.*(?:\||%7C))?siteinfo(?:(?:\||%7C).*)?$"
_META_SITEINFO = re.compile(META_SITEINFO_RE, re.IGNORECASE)


def asks_siteinfo(raw_meta: str) -> bool:
    return bool(_META_SITEINFO.match(raw_meta))


@dataclass(frozen=True)
class PageIdRule:
    """What a raw, non-empty `pageid` value means: a page to look for (`number`), a page that
    cannot exist (`missing`, the id MediaWiki names), or a value that is no integer."""

    number: str | None = None
    missing: str | None = None


def read_pageid(raw_pageid: str) -> PageIdRule:
    match = _PAGEID.match(raw_pageid)
    if match:
        return PageIdRule(number=match.group(1))
    match = _PAGEID_NEGATIVE.match(raw_pageid)
    if match:
        return PageIdRule(missing="-" + match.group(1))
    if _PAGEID_NEGATIVE_ZERO.match(raw_pageid):
        return PageIdRule(missing="0")
    return PageIdRule()
