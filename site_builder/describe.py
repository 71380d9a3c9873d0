"""Scenarios in plain words, for people, in the site's language: "Opener: 5+ hearts, 12-21
HCP; Responder: 4+ hearts, singleton or void in clubs with no honours, 10-15 HCP" (in
Italian "Apertore: 5+ cuori, 12-21 punti; ..."), so an editor sees at once whether the DSL
says what the convention means. The words come from the typed `Scenario`, never the text."""

from __future__ import annotations

from bridgeshape_mirror.deals.rules.reasons import Reason
from bridgeshape_mirror.dsl import language
from bridgeshape_mirror.dsl.deck import ROLE_SEAT
from bridgeshape_mirror.dsl.format import format_range
from bridgeshape_mirror.dsl.language import N_
from bridgeshape_mirror.dsl.model import Fit, Position, Range, Role, Scenario, ShapeClass, Suit, SuitClass

ROLE_NAMES = {
    Role.OPENER: N_("Opener"),
    Role.RESPONDER: N_("Responder"),
    Role.OPP1: N_("Left-hand opponent"),
    Role.OPP2: N_("Right-hand opponent"),
}
#: A par contract with the role that plays it, said whole: a language's preposition may take
#: the role's article (Italian "giocato dall'apertore", "dal rispondente"). `%(contract)s` is
#: `diagrams.contract_words`.
PLAYED_BY = {
    Role.OPENER: N_("%(contract)s by opener"),
    Role.RESPONDER: N_("%(contract)s by responder"),
    Role.OPP1: N_("%(contract)s by left-hand opponent"),
    Role.OPP2: N_("%(contract)s by right-hand opponent"),
}
#: Suit names as prose and the hand diagrams' text alternatives say them (SUIT_NAMES are
#: also CSS classes, so they stay English).
SUIT_WORDS = {Suit.S: N_("spades"), Suit.H: N_("hearts"), Suit.D: N_("diamonds"), Suit.C: N_("clubs")}
SHAPE_WORDS = {
    ShapeClass.BALANCED: N_("balanced"),
    ShapeClass.ONE_SUITER: N_("a one-suiter"),
    ShapeClass.TWO_SUITER: N_("a two-suiter"),
    ShapeClass.THREE_SUITER: N_("a three-suiter"),
    ShapeClass.ANY: N_("any shape"),
}
FIT_CLASS_WORDS = {SuitClass.MAJOR: N_("cards in a major"), SuitClass.MINOR: N_("cards in a minor")}
#: Short lengths as a bridge player says them.
LENGTH_WORDS = {
    Range(0, 0): N_("void in %(suit)s"),
    Range(1, 1): N_("singleton in %(suit)s"),
    Range(0, 1): N_("singleton or void in %(suit)s"),
    Range(2, 2): N_("doubleton in %(suit)s"),
}
NO_HONOURS = Range(0, 0)

#: "5+", "0-1", "3": the DSL's own way of writing a range reads well in prose too.
amount = format_range


def _length(rng: Range, suit: str, _) -> str:
    words = LENGTH_WORDS.get(rng)
    if words is not None:
        return _(words) % {"suit": suit}
    return _("%(n)s %(suit)s") % {"n": amount(rng), "suit": suit}


def _with_honours(length: str, honours: Range, _) -> str:
    """A suit's length said with its honour points (a named suit, or the wildcard's suit)."""
    if honours == NO_HONOURS:
        return _("%(length)s with no honours") % {"length": length}
    return _("%(length)s with %(n)s HCP") % {"length": length, "n": amount(honours)}


def describe_position(position: Position, lang: str = language.SOURCE) -> str:
    _ = language.translations(lang).gettext
    parts = []
    for suit, rng in position.suits.items():
        text = _length(rng, _(SUIT_WORDS[suit]), _)
        honours = position.suit_hcp.get(suit)
        parts.append(text if honours is None else _with_honours(text, honours, _))
    if position.x is not None or position.x_hcp is not None:
        another = bool(position.named_suits)
        if position.x is None:
            text = _("another suit") if another else _("a suit")
        else:
            words = _("another suit of %(n)s cards") if another else _("a suit of %(n)s cards")
            text = words % {"n": amount(position.x)}
        parts.append(text if position.x_hcp is None else _with_honours(text, position.x_hcp, _))
    for suit, rng in position.suit_hcp.items():
        if suit in position.suits:
            continue  # said with the suit's length
        words = _("no honours in %(suit)s") if rng == NO_HONOURS else _("%(n)s HCP in %(suit)s")
        parts.append(words % {"n": amount(rng), "suit": _(SUIT_WORDS[suit])})
    if position.hcp is not None:
        parts.append(_("%(n)s HCP") % {"n": amount(position.hcp)})
    if position.shape is not None:
        parts.append(_(SHAPE_WORDS[position.shape]))
    return ", ".join(parts) if parts else _("any hand")


def describe_fit(fit: Fit, lang: str = language.SOURCE) -> str:
    _ = language.translations(lang).gettext
    first, second = fit.pair.roles
    if fit.suit is not None:
        where = _(SUIT_WORDS[fit.suit])
    elif fit.suit_class is not None:
        where = _(FIT_CLASS_WORDS[fit.suit_class])
    else:
        where = _("cards in one suit")
    return _("%(first)s and %(second)s together: %(n)s+ %(where)s") % {
        "first": _(ROLE_NAMES[first]),
        "second": _(ROLE_NAMES[second]).lower(),
        "n": fit.min,
        "where": where,
    }


def describe(scenario: Scenario, lang: str = language.SOURCE) -> list[str]:
    """One sentence per position (opener first, then clockwise), then one per fit."""
    _ = language.translations(lang).gettext
    lines = [
        _("%(role)s: %(hand)s") % {"role": _(ROLE_NAMES[p.role]), "hand": describe_position(p, lang)}
        for p in sorted(scenario.positions, key=lambda p: ROLE_SEAT[p.role])
    ]
    lines += [describe_fit(f, lang) for f in scenario.fits]
    return lines


def sentence(scenario: Scenario, lang: str = language.SOURCE) -> str:
    """The whole scenario on one line, as the report shows it."""
    return "; ".join(describe(scenario, lang))


def say_reason(reason: Reason, lang: str = language.SOURCE) -> str:
    """Why a scenario has no deals, in `lang`: its message translated, with the roles and
    suits named and the numbers written as `lang` does them. English is the JSON's own
    text, which editors have always read."""
    if lang == language.SOURCE:
        return reason.english()
    _ = language.translations(lang).gettext
    if not reason.has_fields:
        return _(reason.message)
    from babel.lists import format_list

    roles = [_(ROLE_NAMES[role]) for role in reason.who]
    suits = [_(SUIT_WORDS[suit]) for suit in reason.suits]
    return _(reason.message).format(
        who=format_list(roles[:1] + [r.lower() for r in roles[1:]], locale=lang) if roles else "",
        suit=format_list(suits, locale=lang) if suits else "",
        suits=format_list(suits, locale=lang) if suits else "",
        number=language.number(reason.number, lang) if reason.number is not None else "",
        bound=language.one_in(reason.bound, lang) if reason.bound is not None else "",
    )
