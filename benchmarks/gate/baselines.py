"""Baselines for the gate benchmark; each sees the same events in the same order as the gate.

What a baseline is given for a write (a deliberate choice, stated in the report):

* ``contest`` -- the credibility-contest dict: key (subject, relation) ->
  (value, credibility of its source); a contradicting claim replaces the stored
  value iff its source is more credible by more than ``margin``, else it is rejected;
  news from a source below ``news_min`` is rejected. Keys are the claim *as written*,
  lowercased (exact strings, no lexicon): the structured fields, or for a text write
  the spans an oracle, lexicon-free parser would cut out of the sentence (so the
  baseline never misses a parse -- an advantage over the gate, which must extract
  the claim itself). Non-functional relations (``knows``, arrival order) are keyed
  by (subject, relation, object) and contradicted only by the opposite truth value.
* ``contest-ids`` -- the same rule on the claim's canonical meaning (an oracle
  that resolves every alias, synonym, unit, number word and paraphrase): what
  the contest rule could do with perfect normalisation.
* ``reject-contra`` -- reject any contradiction of what is stored (canonical
  meaning, as above); first come wins, an observation overrides.
* ``trust`` -- admit iff the source's credibility >= ``threshold``.
* ``hold all`` -- hold every write (rejects nothing, admits nothing): what holding alone is worth.
* ``hold band`` -- the contest with a third tier, on canonical meaning: a contradiction is rejected
  when the stored value was verified within ``fresh`` of its relation's half-life (the world
  moves) or its source is below ``reject_below``, admitted when the new source is more credible
  than the stored one by more than ``margin``, else held; news from a source below
  ``news_below`` is held (below ``news_reject``: rejected).
* ``similarity`` -- embed the claim's text (a structured write is rendered as
  "subject relation object", with "not" for a negation); let s be the cosine to
  the nearest known text (admitted claims and observations): s >= t_high
  "restates" (admit), t_low <= s < t_high "contradicts" (reject), below t_low is
  new (admit).

Every parameter is tuned on the tune seeds for the least cost per write
(``benchmarks/gate/costs.py``; ``benchmarks/gate/tuning.py`` holds the grids).
Observations are stored as verified (credibility 1.0) by the dict baselines and
added to the similarity baseline's known texts; ``trust`` ignores them.
"""

from __future__ import annotations

import numpy as np

from benchmarks.gate.stream import Observation, Write
from benchmarks.gate.text import FUNCTIONAL

ADMIT, REJECT, HOLD = "admit", "reject", "quarantine"
HALF_LIFE = {"located_in": 30, "price": 40, "owned_by": 80}  # the world's change rates (gate_stream)


def surface(w: Write) -> tuple[str, str, str, bool]:
    return (w.form[0].lower().strip(), w.form[1].lower().strip(), w.form[2].lower().strip(), w.form[3])


def struct_text(s: str, r: str, o: str, truth: bool) -> str:
    return f"{s} {'not ' if not truth else ''}{r.replace('_', ' ')} {o}"


class ContestDict:
    """The credibility contest (contest=True) or reject-any-contradiction (contest=False)."""

    def __init__(self, canonical: bool, contest: bool = True, margin: float = 0.0, news_min: float = 0.0) -> None:
        self.canonical, self.contest, self.margin, self.news_min = canonical, contest, margin, news_min
        self.store: dict[tuple, tuple[object, float]] = {}

    def _key(self, s, r, o, functional):
        return (s, r) if functional else (s, r, o)

    def decide(self, w: Write) -> str:
        s, r, o, truth = (w.subject, w.relation, w.object, w.truth) if self.canonical else surface(w)
        functional = w.relation in FUNCTIONAL
        key = self._key(s, r, o, functional)
        held = self.store.get(key)
        value = o if functional else truth
        if held is None and w.cred < self.news_min:
            return REJECT
        if functional and not truth:  # "s r not o"
            if held is None or held[0] != o:
                return ADMIT
            if self.contest and w.cred > held[1] + self.margin:
                del self.store[key]
                return ADMIT
            return REJECT
        if held is None or held[0] == value:
            self.store[key] = (value, max(w.cred, held[1] if held else 0.0))
            return ADMIT
        if self.contest and w.cred > held[1] + self.margin:
            self.store[key] = (value, w.cred)
            return ADMIT
        return REJECT

    def observe(self, e: Observation) -> None:
        functional = e.relation in FUNCTIONAL
        key = self._key(e.subject, e.relation, e.object, functional)
        self.store[key] = (e.object if functional else e.truth, 1.0)


class HoldAll:
    def decide(self, w: Write) -> str:
        return HOLD

    def observe(self, e: Observation) -> None:
        pass


class HoldBand:
    """The credibility contest with a hold band (see the module's doc)."""

    def __init__(
        self,
        news_below: float = 0.5,
        fresh: float = 0.25,
        margin: float = 0.0,
        reject_below: float = 0.0,
        news_reject: float = 0.0,
    ) -> None:
        self.news_below, self.fresh, self.margin = news_below, fresh, margin
        self.reject_below, self.news_reject = reject_below, news_reject
        self.store: dict[tuple, tuple[object, float, int]] = {}  # key -> (value, credibility, turn)

    def decide(self, w: Write) -> str:
        functional = w.relation in FUNCTIONAL
        key = (w.subject, w.relation) if functional else (w.subject, w.relation, w.object)
        held = self.store.get(key)
        value = w.object if functional else w.truth
        against = held is not None and ((held[0] == w.object) if functional and not w.truth else held[0] != value)
        if not against:
            if held is None and w.cred < self.news_below:
                return REJECT if w.cred < self.news_reject else HOLD
            if w.truth or not functional:
                self.store[key] = (value, max(w.cred, held[1] if held else 0.0), held[2] if held else w.turn)
            return ADMIT
        if held[1] >= 1.0 and (not functional or w.turn - held[2] <= self.fresh * HALF_LIFE.get(w.relation, 1e9)):
            return REJECT
        if w.cred < self.reject_below:
            return REJECT
        if w.cred > held[1] + self.margin:
            if functional and not w.truth:
                del self.store[key]
            else:
                self.store[key] = (value, w.cred, w.turn)
            return ADMIT
        return HOLD

    def observe(self, e: Observation) -> None:
        functional = e.relation in FUNCTIONAL
        key = (e.subject, e.relation) if functional else (e.subject, e.relation, e.object)
        self.store[key] = (e.object if functional else e.truth, 1.0, e.turn)


class TrustSource:
    def __init__(self, threshold: float = 0.5) -> None:
        self.threshold = threshold

    def decide(self, w: Write) -> str:
        return ADMIT if w.cred >= self.threshold else REJECT

    def observe(self, e: Observation) -> None:
        pass


def event_texts(events) -> list[str]:
    out = []
    for e in events:
        if isinstance(e, Observation):
            out.append(struct_text(e.subject, e.relation, e.object, e.truth))
        else:
            out.append(e.text if e.mode == "text" else struct_text(*e.form))
    return out


class SimilarityTable:
    """Cosines between all of a stream's event texts, computed once; decisions for any thresholds."""

    def __init__(self, events, embedder) -> None:
        self.events = events
        vecs = np.asarray(embedder(event_texts(events)), dtype=np.float32)
        self.sims = vecs @ vecs.T

    def run(self, t_low: float, t_high: float) -> list[str]:
        """One outcome per write, in stream order."""
        known = np.zeros(len(self.events), dtype=bool)
        out = []
        for i, e in enumerate(self.events):
            if isinstance(e, Observation):
                known[i] = True
                continue
            s = float(self.sims[i, known].max()) if known.any() else -1.0
            verdict = REJECT if t_low <= s < t_high else ADMIT
            if verdict == ADMIT:
                known[i] = True
            out.append(verdict)
        return out


def run_simple(events, method) -> list[str]:
    out = []
    for e in events:
        if isinstance(e, Observation):
            method.observe(e)
        else:
            out.append(method.decide(e))
    return out
