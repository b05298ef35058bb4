"""What the bots of several games share: uniform and normal draws from the room's generator, and a numeric guess.

Bots draw all their randomness from the ``Rng`` the room hands them (never the global ``random``), so the same
generator gives the same moves.
"""

from __future__ import annotations

import math

from engine.core import Rng


def uniform(rng: Rng) -> float:
    """A float in [0, 1)."""
    return (rng.next_u64() >> 11) / float(1 << 53)


def gaussian(rng: Rng) -> float:
    """A standard normal draw (Box-Muller)."""
    u1 = max(uniform(rng), 1e-12)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * uniform(rng))


def guess(rng: Rng, correct: int, spread: float) -> int:
    """A numeric guess around the truth with a relative error, sometimes exactly right for round numbers."""
    value = correct * (1.0 + spread * gaussian(rng)) + gaussian(rng) * spread * 3
    return max(0, round(value))
