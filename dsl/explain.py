"""A plain-text account of a parse result for a terminal: each error under its line, with a caret.

Bounded whatever the input: each error shows a window of its line around the place (not
the whole line again, which made 64 KB of input print 384 MB), at most `SHOWN` errors are
shown, and control characters from the DSL are written as escapes, so a page cannot move
the cursor or recolour the terminal of whoever runs `validate`.
"""

from __future__ import annotations

import unicodedata

from . import language
from .errors import DslError, ErrorCode
from .parser import ParseResult

#: Characters of the line shown on each side of an error's place.
CONTEXT = 40
#: The longest run shown under carets; a longer error is cut there, with "...".
MARK = 60
#: Errors shown; a longer list ends with a count of the rest.
SHOWN = 100
#: The longest message or hint shown (they quote the token, which may be the whole input).
SENTENCE = 400


def printable(text: str) -> str:
    """`text` with control and format characters (escape sequences, bidi overrides) written
    as `\\x1b`-style escapes; tabs and CRs as single spaces, as offsets count them."""
    out = []
    for ch in text:
        if ch in "\t\r":
            out.append(" ")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            out.append(ch.encode("unicode_escape").decode("ascii"))
        else:
            out.append(ch)
    return "".join(out)


def _sentence(text: str) -> str:
    text = printable(text)
    return text if len(text) <= SENTENCE else text[: SENTENCE - 3] + "..."


def _caret_block(raw: str, error: DslError) -> list[str]:
    line_start = 0
    for _ in range(error.line - 1):
        found = raw.find("\n", line_start)
        if found < 0:
            break
        line_start = found + 1
    line_end = raw.find("\n", line_start)
    line_end = len(raw) if line_end < 0 else line_end
    start = min(line_start + error.column - 1, line_end)
    end = min(line_end, start + max(1, min(error.length, MARK)))
    left = max(line_start, start - CONTEXT)
    right = min(line_end, end + CONTEXT)
    before = ("..." if left > line_start else "") + printable(raw[left:start])
    marked = printable(raw[start:end])
    after = printable(raw[end:right]) + ("..." if right < line_end else "")
    return ["    " + before + marked + after, "    " + " " * len(before) + "^" * max(1, len(marked))]


def _count(n: int, lang: str) -> str:
    """A count as `lang` writes it (Babel); English as Python does, the same digits and
    commas (`str` below a thousand), so an English terminal never loads Babel."""
    return f"{n:,}" if lang == language.SOURCE else language.number(n, lang)


def explain(result: ParseResult, lang: str = language.SOURCE) -> str:
    """The account of `result` in `lang` (its messages are what the parse made them: parse
    inside `messages.speaking(lang)` for them to be in `lang` too)."""
    t = language.translations(lang)
    _, ngettext = t.gettext, t.ngettext
    if result.valid:
        if not result.scenarios:
            return _("valid: no constraints (the string is blank)")
        labels = ", ".join(printable(s.label) or f"#{i}" for i, s in enumerate(result.scenarios, start=1))
        count = len(result.scenarios)
        return ngettext("valid: %(count)s scenario (%(labels)s)", "valid: %(count)s scenarios (%(labels)s)", count) % {
            "count": _count(count, lang),
            "labels": labels,
        }
    errors = list(result.errors)
    more = errors.pop() if errors[-1].code is ErrorCode.MORE_ERRORS else None
    count = len(errors)
    if more is not None:
        out = [_("invalid: more than %(count)s errors") % {"count": _count(count, lang)}]
    else:
        out = [ngettext("invalid: %(count)s error", "invalid: %(count)s errors", count) % {"count": _count(count, lang)}]
    for error in errors[:SHOWN]:
        out.append("")
        where = _("scenario %(scenario)s, line %(line)s, column %(column)s") % {
            "scenario": error.scenario,
            "line": error.line,
            "column": error.column,
        }
        out.append(f"{where} [{error.code.value}]")
        out.append(f"  {_sentence(error.message)}")
        out.extend(_caret_block(result.raw, error))
        if error.hint:
            out.append("  " + _("hint: %(hint)s") % {"hint": _sentence(error.hint)})
    if count > SHOWN:
        out.extend(("", _("... and %(count)s more errors not shown here (--json lists them).") % {"count": _count(count - SHOWN, lang)}))
    if more is not None:
        out.extend(("", _sentence(more.message)))
    return "\n".join(out)
