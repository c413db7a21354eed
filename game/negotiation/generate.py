"""Random multi-issue negotiation scenes for benchmarks, tournaments and tests."""

from __future__ import annotations

from game.core import seeds
from game.negotiation.spec import NegotiationScene


def random_scenes(n: int, seed: int, deadline: int = 20) -> list[NegotiationScene]:
    """``n`` scenes between parties ``a`` (moves first) and ``b``: 2-3 issues of 3-5 values,
    random weights and value utilities, reservation values in [0, 0.4]. Seeded, so the same
    ``(n, seed)`` always gives the same scenes."""
    rng = seeds.rng(seed, "negotiation", "scenes")
    scenes = []
    for i in range(n):
        k = int(rng.integers(2, 4))
        issues = {f"i{j}": [f"v{v}" for v in range(int(rng.integers(3, 6)))] for j in range(k)}
        parties = []
        for pid in ("a", "b"):
            parties.append(
                {
                    "id": pid,
                    "weights": {iss: float(rng.random() + 0.1) for iss in issues},
                    "values": {iss: {v: float(rng.random()) for v in vals} for iss, vals in issues.items()},
                    "reservation": float(rng.uniform(0.0, 0.4)),
                }
            )
        scenes.append(
            NegotiationScene.model_validate(
                {
                    "type": "negotiation",
                    "title": f"s{i}",
                    "issues": issues,
                    "parties": parties,
                    "deadline": deadline,
                    "first": "a",
                }
            )
        )
    return scenes
