"""The beta distribution LowRiskOverCommitment fits to a node's load (upstream
``lowriskovercommitment/beta.go``, which uses gonum's regularized incomplete beta function; here
the continued fraction of the incomplete beta function, evaluated by the modified Lentz method)."""

from __future__ import annotations

import math
from typing import Final, final

__all__ = ["BetaDistribution", "compute_probability", "max_variance", "regularized_incomplete"]

_EPS: Final = 1e-15
_TINY: Final = 1e-300
_MAX_ITER: Final = 10_000


def _continued_fraction(x: float, a: float, b: float) -> float:
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < _TINY:
        d = _TINY
    d = 1.0 / d
    h = d
    for m in range(1, _MAX_ITER + 1):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = _TINY if abs(d) < _TINY else d
        c = 1.0 + aa / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = _TINY if abs(d) < _TINY else d
        c = 1.0 + aa / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return h


def regularized_incomplete(x: float, a: float, b: float) -> float:
    """``I_x(a, b)``; NaN outside ``a > 0, b > 0, 0 <= x <= 1`` (upstream ``RegularizedIncomplete``)."""
    if a <= 0 or b <= 0 or x < 0 or x > 1 or math.isnan(x):
        return math.nan
    if x == 0:
        return 0.0
    if x == 1:
        return 1.0
    try:
        log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    except (ValueError, OverflowError):
        return math.nan
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _continued_fraction(x, a, b) / a
    return 1.0 - front * _continued_fraction(1.0 - x, b, a) / b


def max_variance(m1: float) -> float:
    """upstream ``GetMaxVariance``: the largest variance of a distribution on [0, 1] with mean *m1*."""
    return m1 * (1 - m1) if 0 < m1 < 1 else 0.0


@final
class BetaDistribution:
    """A beta distribution with parameters ``alpha`` and ``beta``."""

    __slots__ = ("alpha", "beta")

    def __init__(self, alpha: float = 1.0, beta: float = 1.0) -> None:
        self.alpha = alpha
        self.beta = beta

    def mean(self) -> float:
        """The first moment."""
        return self.alpha / (self.alpha + self.beta)

    def match_moments(self, m1: float, m2: float) -> bool:
        """Fit the first two moments (upstream ``MatchMoments``); False when no beta distribution
        has them."""
        variance = m2 - m1 * m1
        if m1 < 0 or m1 > 1 or variance < 0 or variance >= m1 * (1 - m1):
            return False
        temp = max(m1 * (1 - m1) / variance - 1, 5e-324)
        self.alpha = m1 * temp
        self.beta = (1 - m1) * temp
        return self.alpha > 0 and self.beta > 0

    def cdf(self, x: float) -> float:
        """upstream ``DistributionFunction``: ``P(X <= x)``, 0 when not a probability."""
        p = regularized_incomplete(x, self.alpha, self.beta)
        if math.isnan(p) or p < 0 or p > 1:
            return 0.0
        return p


def compute_probability(mu: float, sigma: float, threshold: float) -> tuple[float, BetaDistribution | None]:
    """upstream ``ComputeProbability``: ``P(load <= threshold)`` for a load of mean *mu* and
    deviation *sigma* fitted by a beta distribution, and the fitted distribution."""
    if mu == 0 or (sigma == 0 and mu <= threshold):
        return 1.0, None
    if sigma == 0 and mu > threshold:
        return 0.0, None
    dist = BetaDistribution(1, 1)
    if not dist.match_moments(mu, sigma * sigma + mu * mu):
        return 0.0, None
    return dist.cdf(threshold), dist
