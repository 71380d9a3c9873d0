"""The nginx drop-in: the extension's `api.php` URLs answered from the mirror's files.

`render_snippet(mirror)` returns a set of `location` blocks to `include` inside a
`server {}`; the server's own `root`/`location /` keeps serving everything else (point it
at the mirror and the static files fall through as they are). Client programs switch from
the wiki to the mirror by changing only the host:

    GET /api.php?action=bridgeshape&shapeaction=get&title=T&format=json   api/get/title/T.json
    GET /api.php?action=bridgeshape&shapeaction=get&pageid=N&format=json  api/get/pageid/N.json
    GET /api.php?action=bridgeshape&shapeaction=list&format=json          api/list.json
    GET /api.php?action=bridgeshape&shapeaction=listall&format=json       api/listall.json

Parameters come in any order; `format` is ignored (always JSON). Errors are MediaWiki's:
HTTP 200, `Content-Type: application/json; charset=utf-8`, `{"error": {"code", "info"}}`,
with the very documents `bridgeshape-mirror serve` gives (the table and the regular
expressions are `site_builder.serve`'s). `validate` cannot be static: it answers
`moduledisabled`, or is proxied to a running `serve` when `validate_upstream` is given.

Stock Debian nginx (`nginx-light` is enough: rewrite, SSI, proxy are core modules).

How a title finds its file (the choice, and why)
-------------------------------------------------
nginx gives `$arg_title` raw: percent-encoded, with `+` or `%20` for spaces. It never
decodes a query value itself, and (tested on 1.22) `rewrite ... last` does *not*
percent-decode the new URI either. What does decode is a *subrequest from an SSI
`include virtual`*: nginx runs its URI through `ngx_http_parse_unsafe_uri`, which
percent-decodes it and refuses `..` segments and NUL bytes. So:

1. in the rewrite phase, `+` and `%20` become `_` (the file names' spaces); a raw `?`, `$`,
   `"` or `\\` is re-encoded (`?` would cut the subrequest URI, the others would be read as
   SSI syntax). nginx has no global substitution, so each of these is a cascade of
   `if`/`set` steps that replace 32 occurrences seven times, then 16, 8, 4, 2, 1: any count
   up to 255, the most a 255-byte MediaWiki title can hold;
2. titles MediaWiki calls bad (`# < > [ ] | { }`, control characters, `%XX`, `.`/`..`
   segments, nothing but spaces, over 765 raw characters) answer `invalidtitle` before
   any file is touched;
3. a tiny SSI body (`return 200` with `ssi on`) includes
   `/__bridgeshape/title/<value>.json`, an internal `alias` of `api/get/title/`; nginx
   decodes it to the UTF-8 file name, subpage `/` included. A missing file outputs the
   SSI `stub`: the `missingtitle` document. The mirror's files pass through untouched
   (SSI is off in the location that reads them, so a DSL holding `<!--# ... -->` is data).

The rejected alternatives: a generated `map` from every client spelling of every title to
its file (3^spaces spellings times the per-character encodings, and nginx must be reloaded
after every build); a redirect to the static path (clients would have to follow it, and
the answer would no longer be the extension's); a loopback `proxy_pass` to nginx itself
(depends on how the server listens, doubles the connections).

Known differences from a live MediaWiki: the first of repeated parameters counts (PHP
takes the last); parameter names match case-insensitively; the title must be sent exactly
(no first-letter case folding, no trimming); a missing title has no `MediaWiki-API-Error`
header (headers are out before the SSI include knows; the body is right).

The mirror's folder is usually a symlink the build flips: pass that path (it is not
resolved here) and nginx follows it on every request (do not enable `open_file_cache` for
these locations). Before the first build list/listall answer nginx's plain 404.

Use: `python -m site_builder.nginx /srv/bridgeshape/output [--api-path /w/api.php]
[--validate-upstream http://127.0.0.1:8080] > /etc/nginx/snippets/bridgeshape.conf`, then
`include snippets/bridgeshape.conf;` in the site's `server {}`; or `write_snippet(path,
mirror)` from the build. The snippet does not change between builds.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from . import serve
from .serve import ApiError

#: Internal URI prefix and variable prefix: chosen not to collide with a site's own.
PREFIX = "/__bridgeshape"
VAR = "bridgeshape"

#: Raw characters of a title value to re-encode before the SSI include, with the
#: expression of the run of characters between two of them.
_ESCAPES = (
    (r"\?", r"[^?]*", "%3F"),
    (r"\$", r"[^$]*", "%24"),
    ('"', r'[^"]*', "%22"),
    (r"\\", r"[^\\]*", "%5C"),
)
_SPACE_SEGMENT = r"(?:[^+%]|%(?!20))*"
#: How many occurrences each step replaces: seven 32s, then a binary countdown, so any
#: count up to 255 is replaced (nginx caps one parameter at 4 KB: no 128-wide regex).
_CASCADE_STEPS = (32,) * 7 + (16, 8, 4, 2, 1)


def quote(value: str) -> str:
    """An nginx string literal. `$` keeps its meaning (a variable): callers put none by accident."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _plain_path(path: str | os.PathLike[str]) -> str:
    text = os.fspath(path)
    if "$" in text or "\n" in text or "\x00" in text:
        raise ValueError(f"unusable path for an nginx configuration: {text!r}")
    return text


def _error_body(error: ApiError, variable: str | None = None) -> str:
    """The JSON of `error`, as an nginx string; `variable` (a name) fills `{value}`/`{id}`."""
    placeholder = "BRIDGESHAPE-VALUE-PLACEHOLDER"  # ECHO_SAFE, so document() echoes it
    body = serve.json_bytes(error.document(placeholder if variable else None)).decode("utf-8")
    if (placeholder in body) != bool(variable):
        raise AssertionError(f"{error.code}: the placeholder and the variable disagree")
    if "$" in body:
        raise ValueError(f"a '$' in the error text of {error.code}")
    literal = quote(body)
    return literal.replace(placeholder, "${" + variable + "}") if variable else literal


def _return_error(error: ApiError, variable: str | None = None, *, indent: str = "        ") -> str:
    return f"{indent}set ${VAR}_error {error.code};\n{indent}return 200 {_error_body(error, variable)};"


def _if(condition: str, body: str) -> str:
    return f"    if ({condition}) {{\n{body}\n    }}"


def _cascade(variable: str, token: str, segment: str, replacement: str) -> list[str]:
    """`if` steps replacing every `token` in $variable by `replacement` (up to 255 of them)."""
    steps = []
    for count in _CASCADE_STEPS:
        # Short capture names: long ones overflow nginx's default variables_hash_bucket_size
        # (a warning at every reload, and the http{} level is not the snippet's to tune).
        names = [f"bs_c{i}" for i in range(count + 1)]
        regex = "^" + "".join(f"(?<{n}>{segment})(?:{token})" for n in names[:-1]) + f"(?<{names[-1]}>.*)$"
        value = replacement.join("${" + n + "}" for n in names)
        steps.append(f"    if (${variable} ~ {quote(regex)}) {{ set ${variable} {quote(value)}; }}")
    return steps


def _json_location_settings(indent: str = "    ") -> str:
    return (
        f"{indent}types {{ }}\n"
        f'{indent}default_type "{serve.JSON_TYPE}";\n'
        f"{indent}add_header X-Content-Type-Options nosniff always;"
    )


def render_snippet(
    mirror: str | os.PathLike[str],
    *,
    api_paths: Sequence[str] = serve.API_PATHS,
    validate_upstream: str | None = None,
) -> str:
    """The `location` blocks for a `server {}` (see the module docstring).

    `mirror`: the published output folder (the symlink the build flips), absolute.
    `api_paths`: where clients call api.php (the wiki's path: `/api.php`, `/w/api.php`).
    `validate_upstream`: e.g. `http://127.0.0.1:8080`, a running `bridgeshape-mirror serve`
    that answers `shapeaction=validate`; without it validate answers `moduledisabled`.
    """
    root = _plain_path(Path(os.fspath(mirror)).absolute()).rstrip("/")
    if validate_upstream is not None:
        validate_upstream = _plain_path(validate_upstream).rstrip("/")
        if not validate_upstream.startswith(("http://", "https://")) or any(c in validate_upstream for c in " ;'\"{}"):
            raise ValueError(f"validate_upstream must be an http(s) URL: {validate_upstream!r}")
    err = f"${VAR}_error"
    json_settings = _json_location_settings()
    error_header = f"    add_header MediaWiki-API-Error {err} always;"
    safe = quote(serve.ECHO_SAFE_RE)
    out: list[str] = [
        "# BridgeShape API drop-in for the mirror: generated by site_builder.nginx, do not edit.",
        f"# Mirror: {root}",
        "# include this file inside a server { } block (its root may serve the mirror's static files).",
        "",
    ]
    for path in api_paths:
        if not path.startswith("/") or any(c in path for c in " ;{}'\"$"):
            raise ValueError(f"bad api path {path!r}")
        out += [f"location = {path} {{", f"    rewrite ^ {PREFIX}/api last;", "}", ""]

    # action, shapeaction: dispatch
    out += [
        f"location = {PREFIX}/api {{",
        "    internal;",
        json_settings,
        error_header,
        f'    set {err} "";',
        _if('$arg_action = ""', _return_error(serve.MISSING_ACTION)),
        _if(f'$arg_action ~ {quote("^(?!bridgeshape$)" + serve.ECHO_SAFE_RE[1:])}', _return_error(serve.BAD_ACTION, "arg_action")),
        _if('$arg_action != "bridgeshape"', _return_error(serve.BAD_ACTION)),
        _if('$arg_shapeaction = ""', _return_error(serve.MISSING_SHAPEACTION)),
        _if('$arg_shapeaction = "get"', f"        rewrite ^ {PREFIX}/get last;"),
        _if('$arg_shapeaction = "list"', f"        rewrite ^ {PREFIX}/list last;"),
        _if('$arg_shapeaction = "listall"', f"        rewrite ^ {PREFIX}/listall last;"),
        _if(
            '$arg_shapeaction = "validate"',
            f"        rewrite ^ {PREFIX}/validate last;"
            if validate_upstream
            else _return_error(serve.VALIDATE_NEEDS_SERVICE),
        ),
        _if(f"$arg_shapeaction ~ {safe}", _return_error(serve.BAD_SHAPEACTION, "arg_shapeaction")),
        _return_error(serve.BAD_SHAPEACTION, indent="    "),
        "}",
        "",
    ]
    for name in ("list", "listall"):
        out += [
            f"location = {PREFIX}/{name} {{",
            "    internal;",
            json_settings,
            f"    alias {quote(f'{root}/api/{name}.json')};",
            "}",
            "",
        ]

    # get: which parameter
    out += [
        f"location = {PREFIX}/get {{",
        "    internal;",
        json_settings,
        error_header,
        f'    set {err} "";',
        f'    set ${VAR}_which "";',
        _if('$arg_title != ""', f'        set ${VAR}_which "title";'),
        _if('$arg_pageid != ""', f'        set ${VAR}_which "${{{VAR}_which}}pageid";'),
        _if(f'${VAR}_which = ""', _return_error(serve.MISSING_TITLE_OR_PAGEID)),
        _if(f'${VAR}_which = "titlepageid"', _return_error(serve.TITLE_AND_PAGEID)),
        _if(f'${VAR}_which = "pageid"', f"        rewrite ^ {PREFIX}/get-pageid last;"),
        f"    rewrite ^ {PREFIX}/get-title last;",
        "}",
        "",
    ]

    # get by page id
    out += [
        f"location = {PREFIX}/get-pageid {{",
        "    internal;",
        json_settings,
        error_header,
        f'    set {err} "";',
        _if(
            f"$arg_pageid ~ {quote(serve.PAGEID_RE)}",
            f"        set ${VAR}_pageid $1;\n        rewrite ^ {PREFIX}/pageid-file last;",
        ),
        _if(
            f"$arg_pageid ~ {quote(serve.PAGEID_NEGATIVE_RE)}",
            f"        set ${VAR}_pageid -$1;\n" + _return_error(serve.NO_SUCH_PAGEID, f"{VAR}_pageid"),
        ),
        _if(
            f"$arg_pageid ~ {quote(serve.PAGEID_NEGATIVE_ZERO_RE)}",
            f"        set ${VAR}_pageid 0;\n" + _return_error(serve.NO_SUCH_PAGEID, f"{VAR}_pageid"),
        ),
        _if(f"$arg_pageid ~ {safe}", _return_error(serve.BAD_PAGEID, "arg_pageid")),
        _return_error(serve.BAD_PAGEID, indent="    "),
        "}",
        "",
        f"location = {PREFIX}/pageid-file {{",
        "    internal;",
        json_settings,
        f"    root {quote(root)};",
        "    log_not_found off;",
        f"    try_files /api/get/pageid/${VAR}_pageid.json @{VAR}_nosuchpageid;",
        "}",
        "",
        f"location @{VAR}_nosuchpageid {{",
        json_settings,
        f"    add_header MediaWiki-API-Error {serve.NO_SUCH_PAGEID.code} always;",
        f"    return 200 {_error_body(serve.NO_SUCH_PAGEID, f'{VAR}_pageid')};",
        "}",
        "",
    ]

    # get by title
    title = f"{VAR}_title"
    missing = serve.json_bytes(serve.MISSING_TITLE.document()).decode("utf-8")
    ssi = (
        f'<!--# block name="{VAR}_missing" -->{missing}<!--# endblock -->'
        f'<!--# include virtual="{PREFIX}/title/${{{title}}}.json" stub="{VAR}_missing" -->'
    )
    out += [
        f"location = {PREFIX}/get-title {{",
        "    internal;",
        json_settings,
        error_header,
        "    ssi on;",
        "    ssi_types *;",
        "    ssi_silent_errors on;",
        "    ssi_value_length 4096;",
        f'    set {err} "";',
        f'    set ${VAR}_bad "";',
        f"    if ($arg_title ~* {quote(serve.TITLE_FORBIDDEN_RE)}) {{ set ${VAR}_bad y; }}",
        f"    if ($arg_title ~* {quote(serve.TITLE_PERCENT_RE)}) {{ set ${VAR}_bad y; }}",
        f"    if ($arg_title ~ {quote(serve.TITLE_TOO_LONG_RE)}) {{ set ${VAR}_bad y; }}",
        f"    set ${title} $arg_title;",
        *_cascade(title, serve.SPACE_TOKEN_RE, _SPACE_SEGMENT, "_"),
        *[step for token, segment, code in _ESCAPES for step in _cascade(title, token, segment, code)],
        f"    if (${title} ~ {quote(serve.TITLE_EMPTY_RE)}) {{ set ${VAR}_bad y; }}",
        f"    if (${title} ~* {quote(serve.TITLE_DOT_SEGMENT_RE)}) {{ set ${VAR}_bad y; }}",
        # nginx has no "and": the flag and the raw title in one string, one regex.
        f'    set ${VAR}_check "${{{VAR}_bad}}:$arg_title";',
        _if(f"${VAR}_check ~ {quote('^y:' + serve.ECHO_SAFE_RE[1:])}", _return_error(serve.INVALID_TITLE, "arg_title")),
        _if(f'${VAR}_bad = "y"', _return_error(serve.INVALID_TITLE)),
        f"    return 200 {quote(ssi)};",
        "}",
        "",
        f"location ^~ {PREFIX}/title/ {{",
        "    internal;",
        json_settings,
        f"    alias {quote(root + '/api/get/title/')};",
        "    log_not_found off;  # a missing page is an answer, not a server error",
        "}",
        "",
    ]
    if validate_upstream:
        out += [
            f"location = {PREFIX}/validate {{",
            "    internal;",
            f"    proxy_pass {validate_upstream}/api.php$is_args$args;",
            "    proxy_set_header Host $host;",
            "    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;",
            "}",
            "",
        ]
    return "\n".join(out)


def write_snippet(path: str | os.PathLike[str], mirror: str | os.PathLike[str], **options: object) -> Path:
    """Write the snippet atomically (temporary file, then rename); returns the path."""
    target = Path(path)
    text = render_snippet(mirror, **options)  # type: ignore[arg-type]
    temporary = target.with_name(target.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, target)
    return target


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m site_builder.nginx", description="Print the nginx drop-in for a mirror folder."
    )
    parser.add_argument("mirror", help="the published output folder (absolute, as nginx will see it)")
    parser.add_argument("--api-path", action="append", help="api.php path(s) (default /api.php and /w/api.php)")
    parser.add_argument("--validate-upstream", metavar="URL", help="a running `serve` for shapeaction=validate")
    args = parser.parse_args(argv)
    sys.stdout.write(
        render_snippet(args.mirror, api_paths=args.api_path or serve.API_PATHS, validate_upstream=args.validate_upstream)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

