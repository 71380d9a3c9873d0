"""A scenario's probability: exact (a Fraction of all 52!/(13!)^4 deals) or estimated with a
95% interval (Wilson score interval on a binomial acceptance rate)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class Probability:
    """The share of all deals that satisfy a scenario: exact (`fraction`) or estimated
    (`value` with a 95% interval [`low`, `high`] from `draws` draws)."""

    value: float
    fraction: Fraction | None = None
    low: float | None = None
    high: float | None = None
    draws: int = 0

    @property
    def exact(self) -> bool:
        return self.fraction is not None

    @classmethod
    def of(cls, fraction: Fraction) -> Probability:
        return cls(float(fraction), fraction, float(fraction), float(fraction))


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, centre - half), min(1.0, centre + half))
