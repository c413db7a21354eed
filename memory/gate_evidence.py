"""How much weight the consistency gate gives what it already holds, and who backs it.

* **Corroboration weighted by trust** (:func:`backing`): several sources
  asserting one thing count by the evidence of their trust, not by their
  number. A source's evidence is ``e = max(0, 2c - 1)`` for credibility ``c``
  (a stranger at 0.5 has none); independent evidence combines as
  ``1 - prod(1 - e_i)`` and maps back to a credibility ``(1 + e) / 2``. With no
  trusted source, the best of the sources' credibilities stands. So ten
  strangers back a claim no more than one does, and one trusted source does.
* **Age** (:func:`aged`): for a relation whose value changes over time, what a
  fact's sources said loses weight with its age, halving every ``half_life``
  turns towards 0.5 (no evidence either way); a verified fact starts at 1.
* **Order chains** (:func:`chain`): for ordered relations (``temporal``), the
  facts that put ``a`` before ``b`` through any number of steps.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any


def backing(creds: Iterable[float]) -> float:
    """The credibility several independent sources lend one claim (see the module's doc)."""
    cs = [min(1.0, max(0.0, float(c))) for c in creds]
    if not cs:
        return 0.5
    none = 1.0
    for c in cs:
        none *= 1.0 - max(0.0, 2.0 * c - 1.0)
    evidence = 1.0 - none
    return (1.0 + evidence) / 2.0 if evidence > 0 else max(cs)


def aged(cred: float, age: float, half_life: float) -> float:
    """``cred`` after ``age`` turns of a value that changes: half the distance to 0.5 per half-life."""
    if age <= 0 or half_life <= 0:
        return cred
    return 0.5 + (cred - 0.5) * 0.5 ** (age / half_life)


def chain(edges: Sequence[tuple[str, str, Any]], start: str, goal: str, limit: int = 64) -> list[Any] | None:
    """The facts of a shortest path ``start`` -> ... -> ``goal`` over ``(earlier, later, fact)`` edges,
    or None (breadth first, at most ``limit`` steps)."""
    nxt: dict[str, list[tuple[str, Any]]] = {}
    for a, b, f in edges:
        nxt.setdefault(a, []).append((b, f))
    back: dict[str, tuple[str, Any] | None] = {start: None}
    todo = deque([(start, 0)])
    while todo:
        node, depth = todo.popleft()
        if node == goal and depth:
            path = []
            while back[node] is not None:
                prev, f = back[node]  # type: ignore[misc]
                path.append(f)
                node = prev
            return path[::-1]
        if depth >= limit:
            continue
        for b, f in nxt.get(node, ()):
            if b not in back:
                back[b] = (node, f)
                todo.append((b, depth + 1))
    return None


class Bursts:
    """Who asserted what, when: to hold a burst of agreeing strangers about something new."""

    def __init__(self) -> None:
        self.heard: dict[str, list[tuple[str, int]]] = {}

    @staticmethod
    def key(triple: tuple[str, str, str], truth: bool) -> str:
        return "\x1f".join((*triple, "1" if truth else "0"))

    def note(self, triple: tuple[str, str, str], truth: bool, source: str, turn: int) -> None:
        rows = self.heard.setdefault(self.key(triple, truth), [])
        if all(s != source for s, _ in rows):
            rows.append((source, int(turn)))

    def untrusted(
        self, triple: tuple[str, str, str], truth: bool, turn: int, window: int, cred: Callable[[str], float]
    ) -> tuple[float, float]:
        """(how many sources without trust evidence asserted it within ``window`` turns of each other, up
        to ``turn``; ``1 - e`` for the strongest evidence ``e`` among all that asserted it). A source with
        evidence ``e = max(0, 2c - 1)`` counts ``1 - e**2``: 1 for a stranger or a distrusted source, 0
        when fully trusted, and flat near no evidence (0.91 at credibility 0.65: a barely trusted source
        is almost a stranger). The count is the most in any window. Both are smooth and never larger for
        a more credible source. A burst stays a burst when the claim is checked again later."""
        heard = self.heard.get(self.key(triple, truth), ())
        evidence = sorted((t, max(0.0, 2.0 * cred(s) - 1.0)) for s, t in heard if t <= turn)
        rows = [(t, 1.0 - e * e) for t, e in evidence]
        most, lo, total = 0.0, 0, 0.0
        for t, w in rows:  # the most weight within any ``window`` turns, up to now
            total += w
            while t - rows[lo][0] > window:
                total -= rows[lo][1]
                lo += 1
            most = max(most, total)
        return most, 1.0 - max((e for _, e in evidence), default=0.0)

    def get_state(self) -> dict[str, Any]:
        return {k: [list(r) for r in v] for k, v in self.heard.items()}

    def set_state(self, state: dict[str, Any]) -> None:
        self.heard = {k: [(str(s), int(t)) for s, t in v] for k, v in (state or {}).items()}


@dataclass
class Evidence:
    """What the rule judge found for one candidate: its votes, the strength of each evidence term
    (the strongest fact of each kind), the facts it contradicts, the first it restates, and the
    fact whose contradiction is hard and the one whose agreement is certain (None if none)."""

    votes: list[dict[str, Any]] = field(default_factory=list)
    x: dict[str, float] = field(default_factory=dict)
    contradicted: list[Any] = field(default_factory=list)
    same: Any = None
    hard: str | None = None
    certain: str | None = None  # a verified fact of a relation that cannot change agrees

    def note(self, term: str, strength: float) -> None:
        # a conflict weighs the evidence that the fact still holds: -ln(1 - 0.95 s) (3.0 at full strength)
        v = -math.log(1.0 - 0.95 * float(strength)) if term.endswith("conflict") else float(strength)
        self.x[term] = max(self.x.get(term, 0.0), v)


class TrackRecord:
    """Each source's record on each topic, from the verified observations the gate saw: a claim an
    observation agrees with counts as right, one it contradicts within ``window(relation)`` turns
    as wrong (later, the world may have moved); each claim is settled once. Rebuilt from the audit trail,
    so it needs no state of its own. ``log_odds(source, topic)`` is the Laplace-smoothed
    ``log((right + 1) / (wrong + 1))``: 0 with no record."""

    def __init__(self) -> None:
        self.seen = 0
        self.open: dict[tuple[str, str], list[tuple[Any, int]]] = {}
        self.record: dict[tuple[str, str], list[int]] = {}
        self.claims: dict[str, int] = {}  # source -> claims heard from it
        self.verified_at: dict[str, int] = {}  # fact id -> the turn it was last verified

    def refresh(
        self,
        decisions: Sequence[Any],
        claim: Callable[[Any], Any],
        observed: Callable[[Any], Any],
        vote: Callable[[Any, Any], tuple[float, str] | None],
        window: Callable[[str], float],
    ) -> None:
        """Take in the decisions not seen yet: ``observed(d)`` is the verified fact of an observation's
        decision (else None), ``claim(d)`` the candidate of a claim's; ``vote`` is the rule judge's
        vote of a claim against a verified fact."""
        for d in decisions[self.seen :]:
            fact = observed(d)
            if fact is not None:
                self.verified_at[fact.id] = d.turn
                self._settle(fact, d.turn, vote, window)
            elif not d.reason.startswith("re-checked"):
                c = claim(d)
                self.open.setdefault(c.key, []).append((c, d.turn))
                self.claims[c.source] = self.claims.get(c.source, 0) + 1
        self.seen = len(decisions)

    def _settle(
        self, obs: Any, now: int, vote: Callable[[Any, Any], tuple[float, str] | None], window: Callable[[str], float]
    ) -> None:
        keep = []
        for c, turn in self.open.get(obs.key, []):
            v = vote(c, obs)
            if v is not None and v[0] < 1.0 and now - turn > window(c.relation):
                v = None  # contradicted long after: the world may have moved since
            if v is None:  # no bearing (or too old to tell): stays open
                keep.append((c, turn))
                continue
            row = self.record.setdefault((c.source, c.topic), [0, 0])
            row[0 if v[0] >= 1.0 else 1] += 1
        self.open[obs.key] = keep

    def log_odds(self, source: str, topic: str | None = None) -> float:
        """The record on ``topic``, or on every topic (None)."""
        if topic is None:
            rows = [v for (s, _), v in self.record.items() if s == source]
            right, wrong = sum(r for r, _ in rows), sum(w for _, w in rows)
        else:
            right, wrong = self.record.get((source, topic), (0, 0))
        return math.log((right + 1.0) / (wrong + 1.0))
