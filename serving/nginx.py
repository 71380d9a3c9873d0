"""The nginx drop-in: the extension's `api.php` URLs answered from the mirror's files.

`render_snippet(mirror)` returns a set of `location` blocks to `include` inside a
`server {}`; the server's own `root`/`location /` keeps serving everything else (point it
at the mirror and the static files fall through as they are). Client programs switch from
the wiki to the mirror by changing only the host:

    GET /api.php?action=bridgeshape&shapeaction=get&title=T&format=json   api/get/title/T.json
    GET /api.php?action=bridgeshape&shapeaction=get&pageid=N&format=json  api/get/pageid/N.json
    GET /api.php?action=bridgeshape&shapeaction=list&format=json          api/list.json
    GET /api.php?action=bridgeshape&shapeaction=listall&format=json       api/listall.json
    GET /api.php?action=query&meta=siteinfo|userinfo&siprop=...           api/siteinfo.json
    OPTIONS /api.php?...&origin=*                                          an empty CORS preflight answer
    POST /api.php (form body)                                              as the GET, with njs (`render_post_snippet`); else 405 `badmethod`
    GET /api.php?...&callback=NAME                                         JSONP: an SSI body wraps the answer's file

Parameters come in any order; `format` is ignored (always JSON). Errors are MediaWiki's:
HTTP 200, `Content-Type: application/json; charset=utf-8`, `{"error": {"code", "info",
"*"}}` or the new format (`errorformat`, `formatversion`: a file per error and form), with
the very documents `bridgeshape-mirror serve` gives (the table and the regular expressions
are `serving.api_rules`', the forms `serving.api_format`'). `validate` cannot be static: it
answers `moduledisabled`, or is proxied to a running `serve` when `validate_upstream` is given.

The configuration itself is `templates/nginx.conf.j2`; this module checks the inputs and
supplies what a template cannot say plainly (nginx string literals, error documents with
nginx variables in them, the replacement cascades).

Stock Debian nginx (`nginx-light` is enough: rewrite, SSI, proxy are core modules).
POST needs one more module, njs (Debian's `libnginx-mod-http-js`): `render_post_snippet`'s
location reads the form body and hands the parameters to the same lookups as a subrequest
(`templates/bridgeshape-api-post.js.j2`); the main snippet answers GET without it.

How a title finds its file (the choice, and why)
-------------------------------------------------
nginx gives `$arg_title` raw: percent-encoded, with `+` or `%20` for spaces. It never
decodes a query value itself, and (tested on 1.22) `rewrite ... last` and `try_files` do
*not* percent-decode either. Headers, ETag and Last-Modified (and a 304) come from the
main request, and only a file served by it gets validators from nginx. So:

1. in the rewrite phase, `+` and `%20` become `_` (the file names' spaces). nginx has no
   global substitution, so this is a cascade of `if`/`set` steps that replace 32
   occurrences seven times, then 16, 8, 4, 2, 1: any count up to 255, the most a 255-byte
   MediaWiki title can hold;
2. titles MediaWiki calls bad (`# < > [ ] | { }`, control characters, `%XX`, `.`/`..`
   segments, nothing but spaces, over 765 raw characters) answer `invalidtitle` before
   any file is touched;
3. the escapes of the ASCII characters clients encode (`?`, `/`, `(`...) and of the
   non-ASCII characters of the served titles (`title_characters`, from the build) are
   decoded by shorter cascades (up to 15 of each); then `try_files` serves the title's
   file, or the `missingtitle` error file with its header (`serving.nginx_errors`);
4. a title with an escape left (an encoded `$`, which no nginx string can hold, or a
   character the build did not list) is looked up the old way: a tiny SSI body
   (`return 200` with `ssi on`) includes `/__bridgeshape/file/api/get/title/<value>.json`,
   an internal `alias` of the mirror. A subrequest from an SSI `include virtual` is the one
   thing nginx percent-decodes (`ngx_http_parse_unsafe_uri`, which also refuses `..`
   segments and NUL bytes); a raw `?`, `$`, `"` or `\\` is re-encoded first (`?` would cut
   the URI, the others would be read as SSI syntax); a missing file outputs the SSI
   `stub`, the `missingtitle` document. That answer has no validators and, when the title
   is missing, no error header (headers leave before the include decides).

The mirror's files pass through untouched either way (SSI is off where they are read, so
a DSL holding `<!--# ... -->` is data).

The rejected alternatives: a generated `map` from every client spelling of every title to
its file (3^spaces spellings times the per-character encodings, and nginx must be reloaded
after every build); a redirect to the static path (clients would have to follow it, and
the answer would no longer be the extension's); a loopback `proxy_pass` to nginx itself
(depends on how the server listens, doubles the connections).

Titles are read as MediaWiki reads them (SEMANTICS 6) without per-request code: the
fragment is cut, every spelling of a space becomes `_` and runs collapse (cascades),
underscores at either end and a leading `:` go (one regex each), and the first letter is
found upper-cased because the build writes each spelling that upper-cases into a served
title, and each redirect's title, as a file of its own (`site_builder/title_aliases.py`).
A namespace prefix in any of the wiki's spellings (local, canonical, aliases, any case),
each of its characters raw or percent-encoded, is written as the title file has it, for the
namespaces the build passes (`namespaces`); a `%` or `$` in what is written is written
encoded (no nginx string holds a `$`: such a title is found the SSI way). A name no title
can start with (blank; `#`, `:` or a character MediaWiki forbids in titles, where `serve`
finds nothing either) or whose rule would pass nginx's 4 KB limit on one parameter is left
out of the rules, and a comment in the snippet says so.

Parameters are read as PHP reads them (the last of repeated ones, exact names): one
regular expression over `$args` each (`api_rules.last_arg_re`), not `$arg_NAME`.

Known differences from a live MediaWiki (docs/OPERATING.md lists them): `siprop` is not
read (the one siteinfo file answers); no warnings, `requestid`, `curtimestamp` or HTML page
(a file is served as it is); a namespace name's non-ASCII letters match only as
the wiki spells them; at most 16 spaces beyond ASCII (no-break, ideographic...) are read as
spaces, and bidi marks are not removed; a title found the SSI way (4. above) and JSONP
answers have no validators.

JSONP: a request is routed as any other; the location that would serve a file (or an
error file) includes it instead in a `/**/name(...)` body, so the error header is set
before the headers leave. A file lookup first tests the file (`if (-f ...)`) in a
location of its own: an `if` that matches and stays drops the location's `try_files`.

The mirror's folder is usually a symlink the build flips: pass that path (it is not
resolved here) and nginx follows it on every request (do not enable `open_file_cache` for
these locations). Before the first build list/listall answer nginx's plain 404.

Use: the build writes the snippet for its output folder into the mirror
(`nginx/bridgeshape-api.conf`) and its error answers (`nginx/errors/`); `include` the
snippet in the site's `server {}`. It changes only when the served titles gain a
non-ASCII character (until nginx is reloaded, such a title is found the SSI way).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

import jinja2

from bridgeshape_mirror.sync.titles import SPACE_CHARACTERS

from . import api_format, api_headers, api_rules, nginx_errors
from .api_headers import ServeSettings
from .api_rules import ApiError, json_bytes
from .file_types import FILE_TYPES
from .title_lookup import illegal_in_title

#: Raw characters of a title value to re-encode before the SSI include, with the
#: expression of the run of characters between two of them.
_ESCAPES = (
    (r"\?", r"[^?]*", "%3F"),
    (r"\$", r"[^$]*", "%24"),
    ('"', r'[^"]*', "%22"),
    (r"\\", r"[^\\]*", "%5C"),
)
_SPACE_SEGMENT = r"(?:[^+%]|%(?!20|5[Ff]))*"
_UNDERSCORE_SEGMENT = r"(?:[^_]|_(?!_))*"
#: How many occurrences each step replaces: seven 32s, then a binary countdown, so any
#: count up to 255 is replaced (nginx caps one parameter at 4 KB: no 128-wide regex).
_CASCADE_STEPS = (32,) * 7 + (16, 8, 4, 2, 1)
#: How many spaces beyond ASCII a title may hold for nginx (serve reads any number).
_WIDE_SPACES = 16
#: ASCII characters of a title that clients percent-encode and the snippet decodes before
#: it looks for the title's file (letters and digits are sent raw; `$` cannot be written
#: in an nginx string; `%` is decoded last, apart; spaces and `_` were read before).
_DECODED_ASCII = "!\"&'()*+,-./:;=?@\\^`~"
#: Occurrences of one character decoded: more of them go the SSI way, as any escape left.
_DECODING_STEPS = (8, 4, 2, 1)
#: An escape left after the decoding steps (case-insensitive), but for `%25` (`%`).
_UNDECODED_RE = "%(?!25)[0-9A-F]{2}"
#: nginx reads a configuration token into a 4 KB buffer: a longer regex or value is "too
#: long parameter", and `nginx -t` fails (1.22: 4,096 bytes with the quotes pass).
_PARAMETER_BYTES = 4096
_TOO_LONG = f"its rule would pass nginx's {_PARAMETER_BYTES}-byte limit on a parameter"
#: What the title's spaces are once the cascades ran: a run of them is one `_`.
_SPACE_RUN = re.compile("[" + re.escape(SPACE_CHARACTERS) + "]+")
#: Characters a namespace name may hold that no title's prefix can: `#` starts the
#: fragment (nginx cuts it before the prefix is read), the first `:` ends the prefix.
_PREFIX_BREAKERS = "#:"


def quote(value: str) -> str:
    """An nginx string literal. `$` keeps its meaning (a variable): callers put none by accident."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _plain_path(path: str | os.PathLike[str]) -> str:
    text = os.fspath(path)
    if "$" in text or "\n" in text or "\x00" in text:
        raise ValueError(f"unusable path for an nginx configuration: {text!r}")
    return text


def _json(document: object) -> str:
    return json_bytes(document).decode("utf-8")


def _error_body(error: ApiError, docref: str) -> str:
    """The JSON of `error` (no value in it), as an nginx string: for the one error answered
    by `return` (the others are files, `serving.nginx_errors`)."""
    body = _json(error.document(docref=docref))
    if "$" in body:
        raise ValueError(f"a '$' in the error text of {error.code}")
    return quote(body)


def _error_location(error: nginx_errors.ErrorFile) -> str:
    """The internal location that serves `error`'s file (an SSI one for a template)."""
    return "error-echo" if error.variable else "error"


def _cascade(token: str, segment: str, replacement: str, steps: Sequence[int] = _CASCADE_STEPS) -> Iterator[tuple[str, str]]:
    """(regex, value) of the `if` steps that replace every `token` of a variable by
    `replacement` (up to sum(steps) of them: 255 by default)."""
    for count in steps:
        # Short capture names: long ones overflow nginx's default variables_hash_bucket_size
        # (a warning at every reload, and the http{} level is not the snippet's to tune).
        names = [f"bs_c{i}" for i in range(count + 1)]
        regex = "^" + "".join(f"(?<{n}>{segment})(?:{token})" for n in names[:-1]) + f"(?<{names[-1]}>.*)$"
        yield regex, replacement.join("${" + n + "}" for n in names)


def _title_spaces() -> Iterator[tuple[str, str]]:
    """Spaces to `_`, then runs of `_` to one. (Two passes: a step must not meet its own
    replacement again.)"""
    # Rare, and their alternatives are long: one at a time, a lazy scan each, up to 16.
    for _ in range(_WIDE_SPACES):
        yield f"^(?<bs_c0>.*?)(?:{api_rules.WIDE_SPACE_TOKEN_RE})(?<bs_c1>.*)$", "${bs_c0}+${bs_c1}"
    yield from _cascade(api_rules.SPACE_TOKEN_RE, _SPACE_SEGMENT, "_")
    yield from _cascade(api_rules.UNDERSCORE_RUN_RE, _UNDERSCORE_SEGMENT, "_")


def _ssi_escapes() -> Iterator[tuple[str, str]]:
    """The characters an SSI include's URI cannot take raw, re-encoded."""
    for token, segment, code in _ESCAPES:
        yield from _cascade(token, segment, code)


def _escape_of(char: str) -> str:
    return "".join(f"%{b:02X}" for b in char.encode("utf-8"))


def _title_decoding(characters: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(regex, value) steps (case-insensitive) that decode the percent-escapes of
    `_DECODED_ASCII` and of `characters` (the non-ASCII letters of the served titles), up
    to `sum(_DECODING_STEPS)` of each."""
    extra = sorted({c for c in characters if not c.isascii() and c.isprintable() and not c.isspace()})
    for char in (*_DECODED_ASCII, *extra):
        code = _escape_of(char)
        yield from _cascade(code, f"(?:[^%]|%(?!{code}))*", char, _DECODING_STEPS)


def compile_template() -> None:
    """The snippet's template compiled now (the build does it while its workers deal)."""
    _template()
    _template("nginx-post.conf.j2")
    _template(POST_SCRIPT + ".j2")


def _template(name: str = "nginx.conf.j2") -> jinja2.Template:
    return _environment().get_template(name)


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader(__package__, "templates"),
        autoescape=False,  # nginx configuration, not HTML: quote() does its escaping
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["quote"] = quote
    return env


def _name_pattern(name: str) -> str:
    """A namespace name as a regex over the raw title once the cascades ran: a run of its
    spaces (any of them) is one `_`; every character but a letter, a digit and `_` raw or
    percent-encoded (the regex is case-insensitive for ASCII and for the hex digits). PCRE
    reads a backslash before ASCII punctuation as that character; nginx matches bytes, so
    a non-ASCII character is its UTF-8 bytes, raw."""
    parts = []
    for char in _SPACE_RUN.sub("_", name).strip("_"):
        if char == "_" or (char.isascii() and char.isalnum()):
            parts.append(char)
        else:
            raw = "\\" + char if char.isascii() else char
            parts.append(f"(?:{raw}|{_escape_of(char)})")
    return "".join(parts)


def _unusable(name: str) -> str | None:
    """Why no title can start with `name` as its namespace prefix, or None."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "it is not Unicode text"
    if not _SPACE_RUN.sub("", name):
        return "it is blank"
    if illegal_in_title(name) or any(c in name for c in _PREFIX_BREAKERS):
        return "no title can start with it"
    return None


def _unusable_file_prefix(canonical: str, for_url: bool) -> str | None:
    """Why no title file of the namespace `canonical` can be written by a rule, or None."""
    if not canonical:
        return "it is the main namespace's"
    try:
        canonical.encode("utf-8")
    except UnicodeEncodeError:
        return "it is not Unicode text"
    if illegal_in_title(canonical):
        return "no title can hold it"
    if not _fits(_prefix_value(canonical, for_url)):
        return _TOO_LONG
    return None


def _prefix_value(canonical: str, for_url: bool) -> str:
    """`set`'s value: the title file's prefix, `%` and `$` (which no nginx string can hold)
    percent-encoded, for the decoding steps or the SSI include to turn back; `for_url` (a
    bucket's URL, which the title goes to encoded): its non-ASCII characters too."""
    prefix = canonical.replace(" ", "_").replace("%", "%25").replace("$", "%24")
    if for_url:
        prefix = "".join(c if c.isascii() else _escape_of(c) for c in prefix)
    return prefix + ":$1"


def _fits(text: str) -> bool:
    return len(quote(text).encode("utf-8")) <= _PARAMETER_BYTES


def _left_out(name: str, why: str) -> str:
    return f"namespace name {json.dumps(name)} left out of the prefix rules: {why}"


def _namespace_rules(namespaces: Mapping[str, Sequence[str]], for_url: bool) -> tuple[list[tuple[str, str]], list[str]]:
    """(regex, value) that write a title's namespace prefix as the title file has it, and
    a note (one ASCII line) on each name left out of them: a title cannot start with it
    (`serve` finds no title by it either), or its rule would not fit in one nginx
    parameter. A namespace whose names do not fit in one rule gets several."""
    rules: list[tuple[str, str]] = []
    notes: list[str] = []
    for canonical, names in sorted(namespaces.items()):
        why = _unusable_file_prefix(canonical, for_url)
        if why is not None:
            notes.append(_left_out(canonical, why))
            continue
        patterns = set()
        # The local name as the wiki spells it too: nginx lower-cases no non-ASCII letter.
        for name in sorted({*names, canonical}):
            why = _unusable(name)
            if why is None and not _fits(_rule_regex([_name_pattern(name)])):
                why = _TOO_LONG
            if why is None:
                patterns.add(_name_pattern(name))
            elif name in names:
                notes.append(_left_out(name, why))
        chunk: list[str] = []
        for pattern in sorted(patterns, key=lambda f: (-len(f), f)):
            if chunk and not _fits(_rule_regex([*chunk, pattern])):
                rules.append((_rule_regex(chunk), _prefix_value(canonical, for_url)))
                chunk = []
            chunk.append(pattern)
        if chunk:
            rules.append((_rule_regex(chunk), _prefix_value(canonical, for_url)))
    return rules, notes


def _rule_regex(patterns: Sequence[str]) -> str:
    return "^(?:" + "|".join(patterns) + ")_*(?::|%3A)_*(.*)$"


def _cors_refused_re() -> str:
    """`<methods>:<requested headers>` of a preflight that asked for a header MediaWiki does
    not allow (case-insensitive)."""
    allowed = "|".join(re.escape(h) for h in sorted(api_headers.ALLOWED_CORS_HEADERS))
    return "^.+:(?!\\s*(?:(?:" + allowed + ")\\s*(?:,\\s*|$))+$).+"


@dataclass(frozen=True)
class FileTypeRule:
    """One line of the snippet's `types {}` for the mirror's files: a media type and its
    suffixes (without the dot)."""

    media_type: str
    suffixes: tuple[str, ...]


def _file_type_rules() -> tuple[list[FileTypeRule], list[str], str]:
    """`file_types.FILE_TYPES` for nginx: the `types {}` lines, the text types (`charset_types`,
    so that they get `charset=utf-8` as from `serve`), and a regex of every suffix."""
    grouped: dict[str, list[str]] = {}
    text: list[str] = []
    for suffix, (kind, is_text) in FILE_TYPES.items():
        grouped.setdefault(kind, []).append(suffix.removeprefix("."))
        if is_text and kind not in text and kind != "text/html":  # nginx always counts text/html
            text.append(kind)
    rules = [FileTypeRule(kind, tuple(suffixes)) for kind, suffixes in grouped.items()]
    suffix_re = "|".join(re.escape(suffix.removeprefix(".")) for suffix in FILE_TYPES)
    return rules, text, suffix_re


#: The POST snippet and its njs script, beside the main snippet (the build writes all three
#: into the mirror's `nginx/`).
MAIN_SNIPPET = "bridgeshape-api.conf"
POST_SNIPPET = "bridgeshape-api-post.conf"
POST_SCRIPT = "bridgeshape-api-post.js"
#: Room for the lookups' answer to a POST (held in memory): past the largest list a wiki's
#: mirror has (a `listall` of thousands of pages is a few MB).
_POST_ANSWER_BYTES = "16m"


def render_post_snippet(*, max_age: int = ServeSettings.max_age, script: str = POST_SCRIPT) -> str:
    """The POST half of the drop-in (needs njs): a `location` to include beside
    `render_snippet`'s, which answers a form body as the GET with the same parameters.
    `script`: where nginx reads `post_script()` from (relative: its configuration folder)."""
    return _template("nginx-post.conf.j2").render(
        cache_control=_checked_cache_control(max_age),
        main_snippet=MAIN_SNIPPET,
        script=_plain_path(script),
        max_body=f"{api_rules.MAX_FORM_BODY // 1024}k",
        max_answer=_POST_ANSWER_BYTES,
    )


def post_script() -> bytes:
    """The njs module `render_post_snippet` imports."""
    text = _template(POST_SCRIPT + ".j2").render(
        callback_unsafe=api_headers.CALLBACK_UNSAFE_RE.replace("/", "\\/"), jsonp_type=api_headers.JSONP_TYPE
    )
    return text.encode("utf-8")


def _checked_cache_control(max_age: int) -> str:
    if isinstance(max_age, bool) or not isinstance(max_age, int) or not 0 <= max_age <= api_headers.MAX_AGE_LIMIT:
        raise ValueError(f"max_age must be a whole number of seconds from 0 to {api_headers.MAX_AGE_LIMIT}: {max_age!r}")
    return api_headers.cache_control(max_age)


def checked_origin(url: str) -> str:
    """An `origin` for `render_snippet` (trailing `/` dropped), or ValueError saying why not."""
    origin = _plain_path(url).rstrip("/")
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment or any(
        c in origin for c in " ;'\"{}?#"
    ):
        raise ValueError(f"the nginx origin must be an http(s) URL without query, e.g. http://127.0.0.1:9000/bucket/prefix: {url!r}")
    return origin


def render_snippet(
    mirror: str | os.PathLike[str] | None = None,
    *,
    api_paths: Sequence[str] = api_rules.API_PATHS,
    validate_upstream: str | None = None,
    max_age: int = ServeSettings.max_age,
    namespaces: Mapping[str, Sequence[str]] | None = None,
    title_characters: Iterable[str] = (),
    origin: str | None = None,
    docref: str = nginx_errors.DEFAULT_DOCREF,
) -> str:
    """The `location` blocks for a `server {}` (see the module docstring).

    `mirror`: the published output folder (the symlink the build flips), absolute; None
    (what the build writes): the server's own root, `$document_root`, so the snippet names
    no path of the machine that built it.
    `max_age`: the answers' `Cache-Control` max-age, seconds.
    `namespaces`: the namespaces of the served titles, local name -> every lower-cased name
    the wiki reads as it (`title_lookup.namespace_spellings`): a title's prefix in any of
    these spellings is written as the title file has it.
    `title_characters`: the characters of the served titles' files (the build's); the
    percent-escapes of the non-ASCII ones are decoded so that those titles are found as
    files. A title with any other escape is found through an SSI include (no validators).
    `api_paths`: where clients call api.php (the wiki's path: `/api.php`, `/w/api.php`).
    `validate_upstream`: e.g. `http://127.0.0.1:8080`, a running `bridgeshape-mirror serve`
    that answers `shapeaction=validate`; without it validate answers `moduledisabled`.
    `origin`: the mirror is in a bucket (`build --out s3://...`): the URL its files are read
    from over HTTP, e.g. `http://127.0.0.1:9000/bucket/prefix` (path style) or an S3 website
    endpoint; then `mirror` is not given. Each file lookup is a `proxy_pass` to it; a 403 or
    404 (a missing object) gives the same error answer as a missing file; titles are sent
    encoded (the bucket decodes them); JSONP is not offered. A host name needs a `resolver`
    in the server block (nginx resolves a proxy_pass with variables when it runs).
    `docref`: the wiki's docref text (`api_format.docref`), which every error carries; the
    error files (`nginx_errors.error_files`) must be written with the same.
    """
    if "$" in docref or "\n" in docref:
        raise ValueError(f"unusable docref for an nginx configuration: {docref!r}")
    if origin is not None:
        if mirror is not None:
            raise ValueError("a mirror folder or an origin URL, not both")
        origin = checked_origin(origin)
        root = quote(origin)
    else:
        root = "$document_root" if mirror is None else quote(_plain_path(Path(os.fspath(mirror)).absolute()).rstrip("/") or "/")
    cache_control = _checked_cache_control(max_age)
    if validate_upstream is not None:
        validate_upstream = _plain_path(validate_upstream).rstrip("/")
        if not validate_upstream.startswith(("http://", "https://")) or any(c in validate_upstream for c in " ;'\"{}"):
            raise ValueError(f"validate_upstream must be an http(s) URL: {validate_upstream!r}")
    for path in api_paths:
        if not path.startswith("/") or any(c in path for c in " ;{}'\"$"):
            raise ValueError(f"bad api path {path!r}")
    namespace_rules, namespace_notes = _namespace_rules(namespaces or {}, for_url=origin is not None)
    file_types, text_types, suffix_re = _file_type_rules()
    return _template().render(
        file_types=file_types,
        text_types=text_types,
        file_suffix_re=suffix_re,
        root=root,
        origin=origin,
        api_paths=api_paths,
        validate_upstream=validate_upstream,
        rules=api_rules,
        headers=api_headers,
        cache_control=cache_control,
        post_snippet=POST_SNIPPET,
        post_script=POST_SCRIPT,
        cors_refused_re=_cors_refused_re(),
        namespace_rules=namespace_rules,
        namespace_notes=namespace_notes,
        error_body=lambda error: _error_body(error, docref),
        docref=docref,
        error_formats=api_format.ERROR_FORMATS,
        json=_json,
        title_spaces=_title_spaces(),
        ssi_escapes=_ssi_escapes(),
        title_decoding=_title_decoding(title_characters),
        title_undecoded_re=_UNDECODED_RE,
        percent_decoding=_cascade("%25", "(?:[^%]|%(?!25))*", "%", _DECODING_STEPS),
        errors=nginx_errors,
        errors_dir=nginx_errors.ERRORS_DIR,
        error_location=_error_location,
    )
