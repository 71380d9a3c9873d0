"""The languages the mirror speaks: one gettext catalogue per language (`locales/<lang>.po`,
the message ids English), and Babel's formats of numbers and dates for each.

A catalogue is compiled from its `.po` into memory the first time it is used (Babel's
`read_po` and `write_mo`), so a clean clone works after `pip install -e .` and no compiled
`.mo` is kept in the repository (docs/DECISIONS.md). Adding a language is adding its `.po`.
"""

from __future__ import annotations

import functools
import gettext as gettext_module
import io
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from babel.support import Translations

#: The language of the message ids, and of a wiki whose language has no catalogue.
SOURCE = "en"


class UnknownLanguage(ValueError):
    """A language asked for (--lang, the configuration) that has no catalogue."""


def N_(message: str) -> str:
    """Marks a string for extraction (`pybabel extract -k N_`) where it is translated later."""
    return message


def _folder():
    # importlib.resources (and the tempfile it pulls in) costs 10-20 ms of a start-up that
    # often needs no catalogue at all (`deals` to JSON): imported when one is read.
    from importlib import resources

    return resources.files(__package__).joinpath("locales")


@functools.cache
def languages() -> tuple[str, ...]:
    """Every language with a catalogue, as its file names them ("en", "it", "pt_BR")."""
    return tuple(sorted(e.name[: -len(".po")] for e in _folder().iterdir() if e.name.endswith(".po")))


def known(tag: str | None) -> str | None:
    """The catalogue for a language tag as MediaWiki or a person writes it ("it", "it-IT",
    "pt-br", "EN"): the whole tag if it has one, else its language; None when neither."""
    if not tag:
        return None
    parts = tag.strip().replace("-", "_").split("_")
    whole = "_".join([parts[0].lower(), *(p.upper() for p in parts[1:])])
    by_lower = {name.lower(): name for name in languages()}
    return by_lower.get(whole.lower()) or by_lower.get(parts[0].lower())


def chosen(tag: str) -> str:
    """The catalogue of a language asked for explicitly; `UnknownLanguage` when there is none."""
    found = known(tag)
    if found is None:
        raise UnknownLanguage(f"no catalogue for the language {tag!r:.40}: the mirror speaks {', '.join(languages())}")
    return found


def site_language(explicit: str | None, wiki: str | None) -> str:
    """The language of the site: the one asked for (checked), else the wiki's, else English."""
    if explicit:
        return chosen(explicit)
    return known(wiki) or SOURCE


@functools.cache
def translations(lang: str) -> Translations | gettext_module.NullTranslations:
    """`lang`'s catalogue. English is the message ids themselves: no catalogue is read for it,
    so what speaks English (`validate`, an English wiki's messages) never imports Babel."""
    if chosen(lang) == SOURCE:
        return gettext_module.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    from babel.support import Translations

    source = _folder().joinpath(f"{chosen(lang)}.po")
    with source.open("rb") as po:
        catalogue = read_po(po, locale=lang)
    compiled = io.BytesIO()
    write_mo(compiled, catalogue)
    compiled.seek(0)
    return Translations(compiled)


# -- formats ------------------------------------------------------------------------------


def number(value: float, lang: str) -> str:
    """5099 -> "5,099" in English, "5.099" in Italian."""
    from babel.numbers import format_decimal

    return format_decimal(value, locale=lang)


def percent(share: float, lang: str) -> str:
    """0.2083 -> "20.8%" in English, "20,8%" in Italian."""
    from babel.numbers import format_percent

    return format_percent(float(share), "#,##0.0%", locale=lang)


def one_in(probability: float, lang: str) -> str:
    """0.0021 -> "1 deal in 476" / "1 smazzata su 476": what a teacher can picture."""
    _ = translations(lang).gettext
    if probability <= 0:
        return _("never")
    n = 1 / probability
    if n < 1.05:
        return _("almost every deal")
    from babel.numbers import format_decimal

    shown = format_decimal(n, format="#,##0.#", locale=lang) if n < 100 else format_decimal(round(n), locale=lang)
    return _("1 deal in %(n)s") % {"n": shown}


def when(moment: datetime, lang: str) -> str:
    """A time as "Dec 1, 2026, 11:20 UTC" / "1 dic 2026, 11:20 UTC": a person needs no
    seconds, and reads the date as the language writes it."""
    from babel.dates import format_date

    moment = moment.astimezone(UTC)
    return f"{format_date(moment, 'medium', locale=lang)}, {moment:%H:%M} UTC"
