"""Why a scenario has no deals, as data (`deals.rules.reasons`): each proof gives its message id and
facts, the JSON's English text is what it has always been, and a text read back from the
JSON (the state file) is the same reason again."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.rules import reasons
from bridgeshape_mirror.deals.errors import TooRare, Unsatisfiable
from bridgeshape_mirror.deals.outcome import PROVED_EMPTY, ScenarioDeals, deal_outcome
from bridgeshape_mirror.deals.rules.reasons import Reason
from bridgeshape_mirror.deals.drawing.rng import make_rng
from bridgeshape_mirror.dsl.model import Role, Suit

#: Scenarios each proved empty by a different rule, and the English the JSON says for them
#: (the wording the published `unsatisfiable` fields had before reasons were data).
PROOFS = [
    ("opener S:7+; responder S:7+", reasons.TOGETHER, "no deal satisfies opener and responder's constraints together"),
    ("opener hcp:25+; opp1 hcp:20+", reasons.DECK_HCP_SHORT, "the four hands would need more than the 40 HCP of the deck"),
    ("opener S:6+; opp1 S:4+; responder S:4+", reasons.SUIT_CARDS, "the four hands would need more than 13 S"),
    ("opener Shcp:10; opp1 Shcp:1+", reasons.SUIT_HCP, "the four hands would need more than the 10 HCP of S"),
    (
        "fit:S8+ opener S:0; responder S:0-7",
        reasons.WHO_WITH_FIT,
        "no deal satisfies opener and responder's constraints together with the partnership's fit",
    ),
    (
        "fit:C8+ opener x:5+ S:4 H:4 D:0",
        reasons.WILDCARD,
        "opener's wildcard (x:/xhcp:) has no candidate suit: SHDC are named by the position or by its partnership's fit",
    ),
]


@pytest.mark.parametrize(("text", "message", "english"), PROOFS)
def test_each_proof_gives_its_message_and_facts_and_the_json_s_english(text, message, english):
    outcome = deal_outcome(dsl.parse_scenarios(text)[0], 1, 2, make_rng(1))
    assert outcome.unsatisfiable is not None and outcome.unsatisfiable.message == message
    assert outcome.unsatisfiable.has_fields
    assert outcome.to_json()["unsatisfiable"] == english
    assert ScenarioDeals.from_json(outcome.to_json()) == outcome


def test_the_facts_are_data_not_text():
    together = deal_outcome(dsl.parse_scenarios("opener S:7+; responder S:7+")[0], 1, 2, make_rng(1)).unsatisfiable
    assert together == Reason(reasons.TOGETHER, who=(Role.OPENER, Role.RESPONDER))
    spades = deal_outcome(dsl.parse_scenarios("opener S:6+; opp1 S:4+; responder S:4+")[0], 1, 2, make_rng(1)).unsatisfiable
    assert spades == Reason(reasons.SUIT_CARDS, suits=(Suit.S,), number=13)


def test_too_rare_keeps_its_english_and_carries_the_draws_and_the_bound():
    exc = TooRare(2_000_000, 3.2456e-7)
    assert str(exc) == (
        "no deal found in 2000000 exact draws of the rarer partnership; the scenario may be "
        "unsatisfiable, and if not its probability is below 3.25e-07 (95% confidence)"
    )
    assert exc.reason == Reason(reasons.TOO_RARE, number=2_000_000, bound=3.25e-7)
    assert exc.upper_bound == 3.2456e-7  # the probability's bound stays exact


def test_an_english_text_given_is_read_into_its_reason():
    assert Unsatisfiable("no deal satisfies the constraints of both partnerships together").reason == Reason(
        reasons.BOTH_PARTNERSHIPS
    )
    outcome = ScenarioDeals(1, "", (), PROVED_EMPTY, unsatisfiable="no hand satisfies opp2's constraints")
    assert outcome.unsatisfiable == Reason(reasons.ONE_HAND, who=(Role.OPP2,))


_FIELDS = {
    "who": st.lists(st.sampled_from(list(Role)), min_size=1, max_size=2).map(tuple),
    "suit": st.sampled_from(list(Suit)).map(lambda s: (s,)),
    "suits": st.lists(st.sampled_from(list(Suit)), min_size=1, max_size=4).map(tuple),
    "number": st.integers(0, 10**9),
    "bound": st.floats(1e-300, 1.0).map(lambda b: float(f"{b:.3g}")),
}


@st.composite
def any_reason(draw) -> Reason:
    message = draw(st.sampled_from(reasons.MESSAGES))
    names = set(re.findall(r"\{(\w+)", message))
    facts = {name: draw(_FIELDS[name]) for name in names}
    suits = facts.pop("suit", None) or facts.pop("suits", ())
    return Reason(message, suits=suits, **facts)


@given(any_reason())
def test_every_reason_is_read_back_from_its_english(reason):
    assert Reason.read(reason.english()) == reason


@given(st.text())
def test_a_text_of_no_message_is_a_reason_said_as_it_is(text):
    reason = Reason.read(text)
    assert reason.english() == text
    assert Reason.read(reason.english()) == reason
