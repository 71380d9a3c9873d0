"""Why a scenario has no deals, as data: one message id per kind of proof (or of giving up)
and the facts it names, kept apart so that each reader says them its own way.

The message ids are English `str.format` texts (marked `N_`, so they are in the catalogues);
`Reason.english()` fills them exactly as the published JSON has always said them (its
`unsatisfiable` and `too_rare` fields), and `Reason.read` turns such a text back into the
reason, so an outcome read from the state file is the same data. The site says a reason in
its language (`site_builder.describe.say_reason`): the role and suit names, and the numbers,
in that language's words and formats.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from bridgeshape_mirror.dsl.language import N_
from bridgeshape_mirror.dsl.model import Role, Suit

# -- proofs of an empty scenario (deals.counting.feasibility, deals.rules.compiled, deals.drawing.sampler) -----------
WHO_WITH_FIT = N_("no deal satisfies {who}'s constraints together with the partnership's fit")
FIT_ALONE = N_("no deal satisfies the partnership's fit")
ONE_HAND = N_("no hand satisfies {who}'s constraints")
TOGETHER = N_("no deal satisfies {who}'s constraints together")
BOTH_PARTNERSHIPS = N_("no deal satisfies the constraints of both partnerships together")
DECK_HCP_SHORT = N_("the four hands would need more than the {number} HCP of the deck")
DECK_HCP_LEFT = N_("the four hands would hold fewer than the {number} HCP of the deck")
SUIT_CARDS = N_("the four hands would need more than {number} {suit}")
SUIT_HCP = N_("the four hands would need more than the {number} HCP of {suit}")
FIT_TAKEN = N_("a fit needs cards that the other partnership must hold")
SEAT_CARDS = N_("{who} cannot get {number} cards from what the other hands leave")
SEAT_HCP = N_("{who} cannot get its HCP from what the other hands leave")
SUIT_SHARE = N_("no way to share the {suit} suit among the four hands as the constraints ask")
FIT_NO_SUIT = N_("no suit can give the partnership its fit with what the other hands need")
WILDCARD = N_(
    "{who}'s wildcard (x:/xhcp:) has no candidate suit: {suits} are named by the position or by its partnership's fit"
)
EARLIER_CLASS = N_("every deal of this class belongs to an earlier class (suits in the order S, H, D, C)")
# -- not a proof: deals.errors.TooRare ------------------------------------------------------
TOO_RARE = N_(
    "no deal found in {number} exact draws of the rarer partnership; the scenario may be "
    "unsatisfiable, and if not its probability is below {bound:.3g} (95% confidence)"
)

# -- neither: a fault of this program (the build publishes the rest and reports it) ----------
INTERNAL_ERROR = N_("could not be dealt: internal error, reported")

MESSAGES = (
    WHO_WITH_FIT, FIT_ALONE, ONE_HAND, TOGETHER, BOTH_PARTNERSHIPS, DECK_HCP_SHORT, DECK_HCP_LEFT, SUIT_CARDS,
    SUIT_HCP, FIT_TAKEN, SEAT_CARDS, SEAT_HCP, SUIT_SHARE, FIT_NO_SUIT, WILDCARD, EARLIER_CLASS, TOO_RARE, INTERNAL_ERROR,
)  # fmt: skip

#: The English of each field, and how `read` finds it again in a text.
_FIELD_PATTERNS = {
    "who": "(?P<who>{role}(?: and {role})*)".format(role="(?:" + "|".join(r.value for r in Role) + ")"),
    "suit": "(?P<suit>[" + "".join(s.value for s in Suit) + "])",
    "suits": "(?P<suits>[" + "".join(s.value for s in Suit) + "]+)",
    "number": r"(?P<number>0|[1-9][0-9]*)",
    "bound": r"(?P<bound>[0-9][0-9.e+-]*|inf)",
}
_FIELD = re.compile(r"\{(\w+)(?::[^}]*)?\}")


@dataclass(frozen=True)
class Reason:
    """A message id of this module (or, for a text no message id reads, that text itself)
    and the facts it names: roles, suits, a count of cards, HCP or draws, a probability bound."""

    message: str
    who: tuple[Role, ...] = ()
    suits: tuple[Suit, ...] = ()
    number: int | None = None
    bound: float | None = None

    @property
    def has_fields(self) -> bool:
        return bool(self.who or self.suits) or self.number is not None or self.bound is not None

    def english(self) -> str:
        """The text the JSON says (byte for byte what it said before reasons were data)."""
        if not self.has_fields:
            return self.message
        return self.message.format(
            who=" and ".join(role.value for role in self.who),
            suit="".join(suit.value for suit in self.suits),
            suits="".join(suit.value for suit in self.suits),
            number=self.number,
            bound=self.bound,
        )

    def __str__(self) -> str:
        return self.english()

    @classmethod
    def read(cls, text: str) -> Reason:
        """The reason whose English is `text`; a text of no message id here (written by an
        older version, say) is a reason of its own, said as it is in every language."""
        for message, pattern in _patterns():
            found = pattern.fullmatch(text)
            if found is None:
                continue
            got = found.groupdict()
            reason = cls(
                message,
                who=tuple(Role(r) for r in got["who"].split(" and ")) if got.get("who") else (),
                suits=tuple(Suit(s) for s in (got.get("suit") or got.get("suits") or "")),
                number=int(got["number"]) if got.get("number") else None,
                bound=float(got["bound"]) if got.get("bound") else None,
            )
            if reason.english() == text:
                return reason
        return cls(text)


@functools.cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    out = []
    for message in MESSAGES:
        pieces, at = [], 0
        for field in _FIELD.finditer(message):
            pieces.append(re.escape(message[at : field.start()]))
            pieces.append(_FIELD_PATTERNS[field.group(1)])
            at = field.end()
        pieces.append(re.escape(message[at:]))
        out.append((message, re.compile("".join(pieces))))
    return tuple(out)


def too_rare(proposals: int, upper_bound: float) -> Reason:
    """`proposals` exact draws found nothing; the bound as the message states it (three
    significant digits), so the reason read back from its text is this one."""
    return Reason(TOO_RARE, number=proposals, bound=float(f"{upper_bound:.3g}"))

