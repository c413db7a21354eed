"""Entities named by a word the world does not declare ("the loft" for the attic), read by meaning.

When the rules find no claim in a clause, a short noun phrase after a determiner ("the", "a",
"that", ...) that names nothing the world knows is compared with every entity's names by the
sentence embedder; it names the entity whose name it is clearly likest to (a floor, and a margin
over every other entity), unless it is a modifier of that name or the first part of one of its
compounds ("the town" is not the Town square, "the boat" not the boathouse). Only lower-case words are read so (an unknown capitalised name is a
name, not a paraphrase), never common words, and never with the hashing embedder, which knows
words but not meaning.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from memory.name_words import COMMON

FLOOR = 0.6  # least likeness of a phrase to an entity's name
MARGIN = 0.08  # least lead over the next entity
DETERMINERS = frozenset("the a an that this those these".split())


class NameSense:
    """Undeclared names read by meaning, for one world's entities (see the module's doc)."""

    def __init__(
        self,
        names: dict[str, list[str]],
        embedder: Any,
        reserved: Iterable[str] = (),
        floor: float = FLOOR,
        margin: float = MARGIN,
    ):
        self.embedder = embedder
        self.reserved = frozenset(reserved) | COMMON
        self.floor, self.margin = float(floor), float(margin)
        self._ids = [eid for eid, ns in names.items() for _ in ns]
        # a name's modifiers ("town" of "Town square") and the first parts of its compounds ("boat" of
        # "boathouse") are other things: English puts the head last ("watermill" is a mill)
        self._other: dict[str, set[str]] = {}
        for eid, ns in names.items():
            for n in ns:
                ws = n.lower().split()
                self._other.setdefault(eid, set()).update(ws[:-1])
                self._other[eid].update(w[:k] for w in ws for k in range(3, len(w)))
        self._texts = [f"the {n}" for ns in names.values() for n in ns]
        self._vectors: np.ndarray | None = None

    @property
    def usable(self) -> bool:
        return self.embedder is not None and getattr(self.embedder, "name", "") != "hash" and bool(self._texts)

    def phrases(self, toks: list[str], free: Callable[[int], bool], capitalised: set[str]) -> list[tuple[int, int]]:
        """(start, end) of each phrase of one or two unknown words after a determiner; ``free(i)``: token
        ``i`` is no part of a mention; ``capitalised``: words written with a capital in the text."""
        out = []
        for i, t in enumerate(toks[:-1]):
            if t not in DETERMINERS:
                continue
            j = i + 1
            while j < len(toks) and j - i <= 2 and self._open(toks[j], capitalised) and free(j):
                j += 1
            if j > i + 1 and (j == len(toks) or not toks[j].isalpha() or toks[j] in self.reserved or not free(j)):
                out.append((i + 1, j))
        return out

    def _open(self, tok: str, capitalised: set[str]) -> bool:
        return tok.isalpha() and len(tok) > 2 and tok not in self.reserved and tok not in capitalised

    def name(self, phrase: str) -> str | None:
        """The entity ``phrase`` names by meaning, or None when none is clearly it."""
        if not self.usable:
            return None
        if self._vectors is None:
            self._vectors = np.asarray(self.embedder(self._texts), dtype=np.float32)
        v = np.asarray(self.embedder([f"the {phrase}"]), dtype=np.float32)[0]
        best: dict[str, float] = {}
        words = phrase.split()
        for eid, s in zip(self._ids, self._vectors @ v):
            if not any(w in self._other.get(eid, ()) for w in words):
                best[eid] = max(best.get(eid, -1.0), float(s))
        ranked = sorted(best.values(), reverse=True)
        if not ranked or ranked[0] < self.floor or (len(ranked) > 1 and ranked[0] - ranked[1] < self.margin):
            return None
        return max(best, key=best.get)
