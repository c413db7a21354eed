"""Rule-based importance of a memory in [0, 1] (an LLM rating can be blended in when configured).

Agreements, quest results and verified facts matter most; offers and claims
next; plain movement least. Numbers, names, the things quests are about and
what a decision turns on (a limit, a condition, a deadline, a secret) add weight.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

BASE = {
    "agreement": 0.9,
    "quest": 0.9,
    "fact": 0.85,
    "rule": 0.8,
    "goal": 0.8,
    "reflection": 0.7,
    "insight": 0.6,
    "offer": 0.6,
    "claim": 0.6,
    "utterance": 0.4,
    "observation": 0.2,
}
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)?\b")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+")
# what a decision turns on: a limit, a condition, a deadline, a secret (a reservation price said once
# matters more than the hundredth offer)
_DECISIVE = re.compile(
    r"\b(?:least|lowest|highest|minimum|maximum|at most|no more than|no less than|floor|ceiling|"
    r"bottom line|walk away|only if|unless|on condition|provided that|deadline|no later than|"
    r"until|before (?:dawn|dusk|noon|midnight|the)|secret(?:ly)?|hidden|buried|password|"
    r"never tell|don't tell|swore|promised?|must not|refuses?)\b",
    re.I,
)


class ImportanceRater:
    """Scores text by kind and content. ``key_terms`` are words that matter in this world
    (quest items, quest NPCs); ``llm`` is an optional callable returning a rating in [0, 1]."""

    def __init__(
        self,
        key_terms: Iterable[str] = (),
        llm: Callable[[str], float] | None = None,
        llm_weight: float = 0.5,
        things: Iterable[str] = (),
    ):
        self.key_terms = {t.lower() for t in key_terms if t}
        self.things = {t.lower() for t in things if t}
        self.llm, self.llm_weight = llm, llm_weight

    def __call__(self, kind: str, text: str) -> float:
        score = BASE.get(kind, 0.3)
        if _NUMBER.search(text):
            score += 0.1
        if _DECISIVE.search(text):
            score += 0.15
        names = len(_NAME.findall(text))
        score += min(0.15, 0.05 * names)
        low = text.lower()
        if any(term in low for term in self.key_terms):
            score += 0.2
        elif any(term in low for term in self.things):
            score += 0.1  # says something about a thing in the world (where it is, what it costs)
        score = min(1.0, score)
        if self.llm is not None:
            try:
                rated = float(self.llm(text))
            except Exception:  # an LLM rating is advisory: keep the rule score
                return round(score, 6)
            score = (1 - self.llm_weight) * score + self.llm_weight * min(1.0, max(0.0, rated))
        return round(score, 6)


def key_terms_of(spec) -> set[str]:
    """Names of the items, NPCs and places that quests are about."""
    terms: set[str] = set()
    for q in spec.quests.values():
        for c in q.goal:
            for attr in ("item", "npc", "location"):
                ident = getattr(c, attr, None)
                if ident is None:
                    continue
                for table in (spec.items, spec.npcs, spec.locations):
                    if ident in table:
                        terms.add(table[ident].name.lower())
                terms.add(ident.replace("_", " "))
    return terms


def things_of(spec) -> set[str]:
    """Names of every item in the world."""
    return {it.name.lower() for it in spec.items.values()}
