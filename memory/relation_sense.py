"""Which relation a clause means when its words name none of the world's relation words.

Two readers, used by :class:`memory.extract.RuleExtractor` in this order:

* **By kinds.** The values in a clause narrow the relation: an amount in a unit (or one that
  converts to it) fits only relations with that unit, a time of day only relations of kind
  "time", and an entity's kind (item, place, person: the world table it came from) only
  relations whose known subjects and objects are of that kind -- known from the world's facts
  and from the values the gate has heard for the relation. When one relation fits the clause's
  (subject kind, object kind) it is the reading.
* **By meaning.** When several fit, the clause's predicate (its words with each entity and value
  replaced by what it is: "someone", "something", "a place", "an amount") is compared with each
  candidate's wording (its aliases, description and facts' texts, masked the same way) by the
  sentence embedder the gate has; a relation is read only when its best likeness clears a floor
  and beats every other candidate's by a margin (both fixed on the tune seeds of the gate
  benchmark: ``python -m benchmarks.gate_reading --calibrate``). The hashing embedder knows words, not meaning:
  with it (or none) this reader abstains and only the rules read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from game.core.claims import as_number
from memory.lexicon import Lexicon

FLOOR = 0.5  # least likeness to a relation's wording for a reading by meaning
MARGIN = 0.03  # least lead over the next relation
PLACEHOLDER = {
    "person": "someone",
    "item": "something",
    "place": "a place",
    "number": "an amount",
    "range": "an amount",
    "time": "a time",
}


def placeholder(kind: str | None) -> str:
    """How a masked mention of ``kind`` is written for the embedder."""
    return PLACEHOLDER.get(kind or "", "something")


class RelationSense:
    """The two readers of the module's doc for one world's lexicon."""

    def __init__(
        self,
        lexicon: Lexicon,
        embedder: Any = None,
        seen: Callable[[str], set[str]] | None = None,
        floor: float = FLOOR,
        margin: float = MARGIN,
    ):
        self.lex = lexicon
        self.embedder = embedder
        self.seen = seen
        self.floor, self.margin = float(floor), float(margin)
        self._vectors: dict[str, np.ndarray] = {}

    # --- by kinds ------------------------------------------------------------------------
    def sorts(self, relation: str) -> tuple[frozenset[str], frozenset[str]]:
        """(subject kinds, object kinds) of ``relation``: the world's facts, and the kinds of the values
        heard for it."""
        subjects, objects = self.lex.sorts(relation)
        if self.seen is not None:
            heard = {self.lex.kind(v) for v in self.seen(relation)}
            objects = objects | {k for k in heard if k}
        return subjects, objects

    def fits(self, relation: str, subject: str, value: str, kind: str) -> bool | None:
        """Does (``subject``, the value read for ``relation`` from a mention of ``kind``) fit what the
        relation takes? None when the kinds involved are unknown (the world says nothing of them)."""
        info = self.lex.info(relation)
        subjects, objects = self.sorts(relation)
        sk = self.lex.kind(subject)
        if sk is not None and subjects - {""} and sk not in subjects:
            return False  # a person is no subject of a ship's fee, whatever the value
        if info.values == "number":
            return kind == "number" and as_number(value) is not None
        if info.values == "time":
            return kind == "time" and len(value) == 5 and value[2] == ":"
        if info.values != "entity" or kind != "entity":
            return False if kind in ("number", "time") else None
        ok = self.lex.kind(value)
        if sk is None or ok is None or not objects - {""}:
            return None
        return ok in objects and (not subjects - {""} or sk in subjects)

    # --- by meaning ------------------------------------------------------------------------
    @property
    def usable(self) -> bool:
        """Is there an embedder that knows meaning (not the hashing one)?"""
        return self.embedder is not None and getattr(self.embedder, "name", "") != "hash"

    def wording(self, relation: str, mask: Callable[[str], str]) -> list[str]:
        """The texts a predicate is compared with: each alias between placeholders of the relation's
        kinds ("someone has met someone"), its description, and its facts' texts masked by ``mask``."""
        info = self.lex.info(relation)
        subjects, objects = self.lex.sorts(relation)
        sk = placeholder(min(subjects - {""}) if subjects - {""} else None)
        ok = placeholder(info.values if info.values != "entity" else (min(objects - {""}) if objects - {""} else None))
        rid = self.lex.relation(relation) or relation
        aliases = (rid.replace("_", " "), *info.aliases)
        out = [f"{sk} {a} {ok}" for a in aliases]
        out += [mask(t) for t in self.lex.texts.get(rid, ()) if t]
        return list(dict.fromkeys(out))

    def _relation_vectors(self, relation: str, mask: Callable[[str], str]) -> np.ndarray:
        if relation not in self._vectors:
            self._vectors[relation] = np.asarray(self.embedder(self.wording(relation, mask)), dtype=np.float32)
        return self._vectors[relation]

    def likeness(self, predicate: str, candidates: Sequence[str], mask: Callable[[str], str]) -> dict[str, float]:
        """Each candidate's best cosine between ``predicate`` and its wording."""
        if not self.usable or not candidates:
            return {}
        v = np.asarray(self.embedder([predicate]), dtype=np.float32)[0]
        return {r: float(np.max(self._relation_vectors(r, mask) @ v)) for r in candidates}

    def vetoes(self, predicate: str, relation: str, mask: Callable[[str], str]) -> bool:
        """Does meaning overrule a reading of ``relation`` that the entities' kinds alone gave? Yes when
        another relation between entities is likelier for ``predicate`` (an amount's unit or a time is
        evidence enough and is never overruled)."""
        if not self.usable or self.lex.info(relation).values != "entity":
            return False
        rivals = [r for r, info in self.lex.relations.items() if info.values == "entity"]
        scores = self.likeness(predicate, rivals, mask)
        return bool(scores) and max(scores, key=scores.get) != (self.lex.relation(relation) or relation)

    def choose(self, predicate: str, candidates: Sequence[str], mask: Callable[[str], str]) -> str | None:
        """The candidate ``predicate`` means, when one is clearly it (floor and margin), else None."""
        scores = sorted(self.likeness(predicate, candidates, mask).items(), key=lambda kv: -kv[1])
        if not scores or scores[0][1] < self.floor:
            return None
        if len(scores) > 1 and scores[0][1] - scores[1][1] < self.margin:
            return None
        return scores[0][0]
