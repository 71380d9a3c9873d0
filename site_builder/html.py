"""The human pages of the mirror (jinja2, autoescaped, strict): everything from the wiki is
escaped, everything is plain HTML and CSS that works from file:// and any static server."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jinja2

from bridgeshape_mirror.dsl import language
from bridgeshape_mirror.dsl.deck import MAX_HAND_HCP, SUIT_NAMES
from bridgeshape_mirror.dsl.language import N_
from bridgeshape_mirror.store.model import parse_timestamp

from .describe import PLAYED_BY, ROLE_NAMES, SUIT_WORDS, say_reason
from .diagrams import SEAT_NAMES, SUITS_DRAWN, VULNERABILITY_WORDS, contract_words


@functools.cache
def environment(lang: str = language.SOURCE) -> jinja2.Environment:
    """The templates in `lang`: `{% trans %}` and `_()` read its catalogue, the filters
    write its numbers and dates."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader(__package__, "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        extensions=["jinja2.ext.i18n"],
        # The templates are the package's own files: looking at their times on every
        # include (a diagram per deal) cost more than the rest of the lookup.
        auto_reload=False,
    )
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_translations(language.translations(lang), newstyle=True)  # type: ignore[attr-defined]
    env.globals["gettext"] = env.globals["_"] = _remembered(env.globals["gettext"])
    env.globals["lang"] = lang
    env.globals["seat_names"] = SEAT_NAMES
    env.globals["vulnerability_words"] = VULNERABILITY_WORDS
    env.globals["suit_words"] = {SUIT_NAMES[suit]: words for suit, words in SUIT_WORDS.items()}
    env.globals["suits_drawn"] = SUITS_DRAWN
    env.globals["role_words"] = {role.value: words for role, words in ROLE_NAMES.items()}
    env.globals["played_by"] = {role.value: words for role, words in PLAYED_BY.items()}
    env.filters["contract"] = contract_words
    env.filters["one_in"] = functools.partial(language.one_in, lang=lang)
    env.filters["number"] = functools.partial(language.number, lang=lang)
    env.filters["percent"] = functools.partial(language.percent, lang=lang)
    env.filters["utc"] = functools.partial(_when, lang=lang)
    env.filters["reason"] = functools.partial(say_reason, lang=lang)
    env.globals["diagram_words"] = _diagram_words(env)
    return env


#: Said in the diagrams only (the template reads it from `DiagramWords`).
DEALER = N_("dealer")


@dataclass(frozen=True)
class DiagramWords:
    """The words of a hand diagram in one language, each as the template's `_()` makes it
    (autoescaped Markup): a page's boards ask for the same few words a thousand times."""

    seats: dict[str, str]
    suits: dict[str, str]
    roles: dict[str, str]
    vulnerability: dict[str, str]
    dealer: str
    #: By a hand's HCP, 0 to MAX_HAND_HCP.
    hcp: tuple[str, ...]


def _diagram_words(env: jinja2.Environment) -> DiagramWords:
    context = env.from_string("").new_context()

    def say(words: str, **variables: Any) -> str:
        return env.globals["gettext"](context, words, **variables)  # type: ignore[operator]

    return DiagramWords(
        seats={seat: say(name) for seat, name in SEAT_NAMES.items()},
        suits={SUIT_NAMES[suit]: say(words) for suit, words in SUIT_WORDS.items()},
        roles={name: say(name) for name in ROLE_NAMES.values()},
        vulnerability={key: say(words) for key, words in VULNERABILITY_WORDS.items()},
        dealer=say(DEALER),
        hcp=tuple(say("%(n)s HCP", n=n) for n in range(MAX_HAND_HCP + 1)),
    )


#: How many translated answers an environment keeps (see `_remembered`).
REMEMBERED_ANSWERS = 50_000


def _remembered(gettext: Callable[..., str]) -> Callable[..., str]:
    """jinja's newstyle `gettext`, remembering its answers: a page of 30 deals asks for the
    same few words (seat and suit names, "dealer", "%(n)s HCP") a thousand times, and each
    answer is a catalogue lookup, a Markup and a `%`. The answer is a function of the words,
    the values (by type as well: Markup and str, 1 and True format differently) and the
    autoescape flag."""
    answers: dict[tuple[Any, ...], str] = {}

    @jinja2.pass_context
    def remembered(context: jinja2.runtime.Context, string: str, **variables: Any) -> str:
        try:
            key = (context.eval_ctx.autoescape, string, *((k, type(v), v) for k, v in variables.items()))
            return answers[key]
        except KeyError:
            if len(answers) >= REMEMBERED_ANSWERS:
                answers.clear()  # titles and numbers are many: a bound, not a leak
            answer = answers[key] = gettext(context, string, **variables)
            return answer
        except TypeError:  # an unhashable value: asked for, not remembered
            return gettext(context, string, **variables)

    return remembered


def compile_templates(lang: str = language.SOURCE) -> None:
    """Every template of `lang` compiled now (a tenth of a second, from the package's
    sources at every start): the build does it while its workers deal, not after."""
    env = environment(lang)
    for name in env.list_templates():
        env.get_template(name)


def render(template: str, lang: str = language.SOURCE, **context: Any) -> bytes:
    return environment(lang).get_template(template).render(**context).encode("utf-8")


def _when(timestamp: str, lang: str) -> str:
    """A store timestamp for a person ("Dec 1, 2026, 11:20 UTC"); other text as it is."""
    try:
        return language.when(parse_timestamp(timestamp), lang)
    except (TypeError, ValueError):
        return timestamp


@dataclass(frozen=True)
class Piece:
    """A run of the raw DSL text: plain, or covered by the errors numbered `errors` (from 1)."""

    text: str
    errors: tuple[int, ...] = ()


def highlight(raw: str, errors: list[dict[str, Any]]) -> list[Piece]:
    """Cut `raw` at every error's start and end, so each piece is wholly inside or outside each
    error. One sweep over the cuts, keeping the errors open at each (comparing every piece
    with every error made a page of many errors take hours)."""
    opening: dict[int, list[int]] = {}
    closing: dict[int, list[int]] = {}
    for n, e in enumerate(errors, start=1):
        start = min(e["offset"], len(raw))
        end = min(len(raw), start + max(e["length"], 1))
        if start < end:
            opening.setdefault(start, []).append(n)
            closing.setdefault(end, []).append(n)
    points = sorted({0, len(raw), *opening, *closing})
    open_now: set[int] = set()
    pieces = []
    for start, end in zip(points, points[1:]):
        open_now.difference_update(closing.get(start, ()))
        open_now.update(opening.get(start, ()))
        pieces.append(Piece(raw[start:end], tuple(sorted(open_now))))
    # An error at the very end of the text (offset == len) still needs a visible mark.
    for n, e in enumerate(errors, start=1):
        if e["offset"] >= len(raw):
            pieces.append(Piece("\u2038", (n,)))
    return pieces
