"""The autopilot's trust decisions (mixed into ``Autopilot``): reads of Σ-Mem only.

M-Route picks whom to ask about a needed thing, M-Vote which of several conflicting
leads to follow first (see the ``agents.autopilot`` docstring). Σ-Mem is never written.
"""

from __future__ import annotations

from typing import Any

from game.core.errors import InputError
from game.core.types import Verb

MAX_ASKS_PER_THING = 1  # ask at most this many NPCs where one needed thing is


class TrustMixin:
    """M-Route and M-Vote for ``Autopilot`` (needs ``sigma``, ``claims``, ``asked``, ``talked``)."""

    sigma: Any
    claims: list[list[str]]
    asked: list[list[str]]
    talked: dict[str, dict[str, Any]]
    ask: bool

    def _topics(self, npc: str) -> list[str]:
        """The topics ``npc`` said it could tell about when greeted."""
        return list(self.talked.get(npc, {}).get("topics", ()))

    def _question(self, g: dict[str, Any], npcs_here: list[str]) -> Any:
        """Ask an NPC here where a needed thing is (M-Route with trust, else the first talker), or None."""
        talkers = [n for n in npcs_here if self._topics(n)]  # NPCs with something to tell
        if not (self.ask and talkers and self._unexplored()):
            return None
        for thing in self._lost(g):
            if self.sigma is not None:
                pick = self._informant(thing, talkers)
                if pick is not None:
                    self.asked.append([pick, thing])
                    return self._do(Verb.ASK, pick, thing)
                continue
            asked = [p for p in self.asked if p[1] == thing]
            if len(asked) >= MAX_ASKS_PER_THING or self._live_hints(thing):
                continue
            for n in talkers:
                if [n, thing] not in self.asked:
                    self.asked.append([n, thing])
                    return self._do(Verb.ASK, n, thing)
        return None

    def _topic_of(self, thing: str) -> str | None:
        """The topic ``thing`` is talked about under: from a claim heard about it (else unknown)."""
        for c in self.claims:
            if c[1] == thing and c[4]:
                return c[4]
        return None

    def _score(self, peer: str, topic: str) -> float:
        try:
            return float(self.sigma.score(peer, topic))
        except InputError:  # a topic the memory does not know: no evidence either way
            return 0.0

    def _informant(self, thing: str, talkers: list[str]) -> str | None:
        """M-Route: whom here to ask where ``thing`` is (None: ask nobody now)."""
        topic = self._topic_of(thing)
        cands = [n for n in talkers if [n, thing] not in self.asked and (topic is None or topic in self._topics(n))]
        if not cands:
            return None
        asked = [p for p in self.asked if p[1] == thing]
        first_ask = len(asked) < MAX_ASKS_PER_THING and not self._live_hints(thing)
        if topic is None:
            return cands[0] if first_ask else None
        try:
            pick = self.sigma.route(topic, cands)
        except InputError:
            pick = cands[0]
        score = self._score(pick, topic)
        if score < 0:  # proved wrong on this topic more than right: not worth a turn
            return None
        if first_ask:
            return pick
        # one more question, to someone trusted, while nobody trusted has spoken about it
        if score > 0 and not any(self._score(p[0], topic) > 0 for p in asked):
            return pick
        return None

    def _leads(self, thing: str) -> list[str]:
        """Live hints for ``thing`` to follow now. With trust, when the claims about one
        (subject, relation) name several live places, only M-Vote's answer (until it is
        ruled out; a tie among untrusted claimants decides nothing); otherwise every live hint."""
        live = self._live_hints(thing)
        if self.sigma is None or len(live) < 2:
            return live
        groups: dict[str, dict[str, str]] = {}  # relation -> {speaker: place} (a speaker's last claim)
        topics: dict[str, str] = {}
        for speaker, subject, relation, obj, topic in self.claims:
            if subject == thing and obj in live:
                groups.setdefault(relation, {})[speaker] = obj
                topics.setdefault(relation, topic)
        winners: list[str] = []
        for relation, claims in groups.items():
            if len(set(claims.values())) < 2:
                continue
            topic = topics[relation]
            if not any(self._score(p, topic) > 0 for p in claims):
                # nobody here is trusted: M-Vote is a plain majority; a tied one prefers nothing
                counts = sorted((list(claims.values()).count(o) for o in set(claims.values())), reverse=True)
                if counts[0] == counts[1]:
                    continue
            try:
                win = self.sigma.vote(topic, claims)
            except InputError:
                continue
            if win not in winners:
                winners.append(str(win))
        return winners or live
