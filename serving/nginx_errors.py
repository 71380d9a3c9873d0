"""The error answers of the nginx drop-in, as files the build writes beside the snippet.

nginx attaches `ETag` and `Last-Modified` (and answers 304) only to what it serves from a
file, and it sends headers before an SSI include has decided anything. So every error the
snippet answers is a file here, served from a location that adds the error's
`MediaWiki-API-Error` header: the same bytes as `serve`'s error documents. An error that
echoes a request value (`Unrecognized value for parameter "action": foo.`) is a template
whose value is an SSI `echo` of an nginx variable; it is served with `ssi_last_modified`,
so it keeps the template's Last-Modified and a weak ETag (the answer is a function of the
URL and the template, so the template's validators are the answer's).

Each error is a file per form MediaWiki can put it in (`errorformat` and `formatversion`,
`FORMS`): the snippet picks the file by the request's parameters, as `serve` writes the
document (`api_format.error_document`).

`badmethod` (a POST, 405) is no file: nginx serves files with 200 only, and POST answers
are not cached anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

from bridgeshape_mirror.store.model import SiteInfo

from . import api_rules as rules
from .api_format import ASSERT_BOT, ASSERT_USER, BAD_ASSERT, BAD_ERRORFORMAT, Output, docref, dumps, error_document
from .api_rules import ApiError

#: The docref of a wiki whose server is not known.
DEFAULT_DOCREF = docref(SiteInfo())
#: Where the build writes them, under the mirror (beside the snippet, `nginx/`).
ERRORS_DIR = "nginx/errors"
_PLACEHOLDER = "BRIDGESHAPE-VALUE-PLACEHOLDER"  # ECHO_SAFE, so document() echoes it
#: The nginx variable a template echoes.
ECHOED = "bs_value"
#: File-name suffix -> the form of the errors in it: the old format (`bc`) and the new one
#: (`errorformat=plaintext`, which `wikitext`, `html` and `raw` answer alike; `none`), in
#: formatversion 1 and 2. The snippet builds the suffix the same way.
FORMS = {
    "": Output(),
    "-fv2": Output(formatversion=2),
    "-text": Output(errorformat="plaintext"),
    "-text-fv2": Output(errorformat="plaintext", formatversion=2),
    "-none": Output(errorformat="none"),
    "-none-fv2": Output(errorformat="none", formatversion=2),
}
#: `errorformat` values the `-text` files answer.
TEXT_FORMATS = ("plaintext", "wikitext", "html", "raw")


@dataclass(frozen=True)
class ErrorFile:
    """One error answer of the snippet: `name` is its file's stem; the value of `variable`
    (an nginx variable name, without `$`) is echoed in its info, or None for a fixed
    document. The snippet copies it into `ECHOED` first, which the template echoes: a
    variable of the request, so an SSI include of the template (JSONP) sees it too."""

    name: str
    error: ApiError
    variable: str | None = None

    def file_name(self, form: str = "") -> str:
        """`.json` for a document; `.ssi` for a template (not JSON until nginx fills it)."""
        return self.name + form + (".ssi" if self.variable else ".json")

    def _text(self, form: str, docref: str, value: str | None) -> str:
        return dumps(error_document(self.error, value, FORMS[form], docref), FORMS[form]).decode("utf-8")

    def body(self, docref: str = DEFAULT_DOCREF, form: str = "") -> bytes:
        if self.variable is None:
            return self._text(form, docref, None).encode("utf-8")
        # The snippet echoes only values it has checked (ECHO_SAFE digits and letters), so
        # no encoding is needed, and none must change what `serve` prints.
        text = self._text(form, docref, _PLACEHOLDER)
        wordless = FORMS[form].errorformat == "none"  # no text, so no value in it
        if (_PLACEHOLDER not in text and not wordless) or "<!--#" in text.replace(_PLACEHOLDER, ""):
            raise AssertionError(f"{self.name}: the error text cannot take an echoed value")
        return text.replace(_PLACEHOLDER, f'<!--# echo var="{ECHOED}" encoding="none" -->').encode("utf-8")

    def returned_text(self, docref: str = DEFAULT_DOCREF, form: str = "") -> str:
        """The same document with the value as an nginx variable, for `return`: what a POST
        gets, whose answer is held in memory, where a template's file length would cap the
        echoed value."""
        text = self._text(form, docref, _PLACEHOLDER)
        if "$" in text:
            raise AssertionError(f"{self.name}: a '$' in the error text")
        return text.replace(_PLACEHOLDER, "${" + ECHOED + "}")


MISSING_ACTION = ErrorFile("missingparam-action", rules.MISSING_ACTION)
BAD_ACTION = ErrorFile("badvalue-action", rules.BAD_ACTION)
BAD_ACTION_ECHO = ErrorFile("badvalue-action", rules.BAD_ACTION, "bs_action")
MISSING_SHAPEACTION = ErrorFile("missingparam-shapeaction", rules.MISSING_SHAPEACTION)
BAD_SHAPEACTION = ErrorFile("badvalue-shapeaction", rules.BAD_SHAPEACTION)
BAD_SHAPEACTION_ECHO = ErrorFile("badvalue-shapeaction", rules.BAD_SHAPEACTION, "bs_shapeaction")
MISSING_TITLE_OR_PAGEID = ErrorFile("missingparam-title-pageid", rules.MISSING_TITLE_OR_PAGEID)
TITLE_AND_PAGEID = ErrorFile("invalidparammix-title-pageid", rules.TITLE_AND_PAGEID)
BAD_PAGEID = ErrorFile("badinteger-pageid", rules.BAD_PAGEID)
BAD_PAGEID_ECHO = ErrorFile("badinteger-pageid", rules.BAD_PAGEID, "bs_pageid")
NO_SUCH_PAGEID = ErrorFile("nosuchpageid", rules.NO_SUCH_PAGEID, "bridgeshape_pageid")
MISSING_TITLE = ErrorFile("missingtitle", rules.MISSING_TITLE)
INVALID_TITLE = ErrorFile("invalidtitle", rules.INVALID_TITLE)
INVALID_TITLE_ECHO = ErrorFile("invalidtitle", rules.INVALID_TITLE, "bridgeshape_raw")
VALIDATE_NEEDS_SERVICE = ErrorFile("moduledisabled-validate", rules.VALIDATE_NEEDS_SERVICE)
ASSERT_USER_FAILED = ErrorFile("assertuserfailed", ASSERT_USER)
ASSERT_BOT_FAILED = ErrorFile("assertbotfailed", ASSERT_BOT)
BAD_ASSERT_VALUE = ErrorFile("badvalue-assert", BAD_ASSERT)
BAD_ASSERT_ECHO = ErrorFile("badvalue-assert", BAD_ASSERT, "bs_assert")
BAD_ERRORFORMAT_VALUE = ErrorFile("badvalue-errorformat", BAD_ERRORFORMAT)
BAD_ERRORFORMAT_ECHO = ErrorFile("badvalue-errorformat", BAD_ERRORFORMAT, "bs_errorformat")

#: The templates (the errors that echo a value).
ECHO_FILES = (
    BAD_ACTION_ECHO, BAD_SHAPEACTION_ECHO, BAD_PAGEID_ECHO, NO_SUCH_PAGEID, INVALID_TITLE_ECHO, BAD_ASSERT_ECHO, BAD_ERRORFORMAT_ECHO,
)

ERROR_FILES = (
    MISSING_ACTION, BAD_ACTION, BAD_ACTION_ECHO, MISSING_SHAPEACTION, BAD_SHAPEACTION, BAD_SHAPEACTION_ECHO,
    MISSING_TITLE_OR_PAGEID, TITLE_AND_PAGEID, BAD_PAGEID, BAD_PAGEID_ECHO, NO_SUCH_PAGEID, MISSING_TITLE,
    INVALID_TITLE, INVALID_TITLE_ECHO, VALIDATE_NEEDS_SERVICE, ASSERT_USER_FAILED, ASSERT_BOT_FAILED, BAD_ASSERT_VALUE,
    BAD_ASSERT_ECHO, BAD_ERRORFORMAT_VALUE, BAD_ERRORFORMAT_ECHO,
)


def error_files(docref: str = DEFAULT_DOCREF) -> dict[str, bytes]:
    """File name (under `ERRORS_DIR`) -> bytes, for every error answer of the snippet;
    `docref`: the wiki's (`api_format.docref`)."""
    return {error.file_name(form): error.body(docref, form) for error in ERROR_FILES for form in FORMS}
