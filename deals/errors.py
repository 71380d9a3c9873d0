"""What can go wrong when dealing a scenario, as named exceptions (the CLI turns them into
messages and exit statuses)."""

from __future__ import annotations

from .rules.reasons import Reason, too_rare


class DealsError(Exception):
    """Base class of the errors of `deals`."""


class Unsatisfiable(DealsError):
    """No deal satisfies the scenario; `reason` says why, for a wiki editor (a
    `deals.rules.reasons.Reason`; an English text of one is read back into it)."""

    def __init__(self, reason: Reason | str):
        self.reason = reason if isinstance(reason, Reason) else Reason.read(reason)
        super().__init__(self.reason.english())


class TooRare(DealsError):
    """The scenario ties both partnerships together so that it cannot be counted exactly, and
    no satisfying deal turned up among `proposals` exact draws of its rarer partnership.

    This is not a proof of unsatisfiability: it says so, with the 95% upper bound on the
    scenario's probability that the failed draws give, instead of looping forever.
    """

    def __init__(self, proposals: int, upper_bound: float):
        self.proposals = proposals
        self.upper_bound = upper_bound
        self.reason = too_rare(proposals, upper_bound)
        super().__init__(self.reason.english())


class NotExpressible(DealsError):
    """A part of a scenario that a script language cannot say exactly (the message names the
    part); the script is refused rather than approximated."""

    def __init__(self, part: str):
        self.part = part
        super().__init__(f"{part} cannot be written exactly as a script")
