"""A world's action catalogue and its masks: every action an actor could take, and which are plausible now.

The catalogue (``build_templates``) is a fixed list of actions per world that depends only on the
spec; ``CatalogueIndex`` groups its entries by what decides whether each is plausible, and
``CatalogueIndex.mask`` marks the plausible ones for an actor now. The AEC environment's actions
are its indices (``game.envs.aec``); the commands a player may type now are its masked-in entries
written out (``game.engine.commands``). What is reachable, walkable, openable, affordable and
askable comes from ``game.engine.predicates``, the same functions the rules ask, so a masked-in
action is never refused for being out of reach or beyond the buyer's purse.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import numpy as np

from game.core.types import DIRECTIONS, PLAYER, Action, Verb
from game.engine import predicates
from game.negotiation.spec import NegotiationScene

MAX_OFFER_OUTCOMES = 200  # negotiation scenes with more complete outcomes get no OFFER actions


@dataclasses.dataclass(frozen=True, slots=True)
class ActionTemplate:
    """One catalogue entry, not yet bound to an actor."""

    verb: Verb
    obj: str | None = None
    target: str | None = None
    text: str | None = None
    terms: tuple[tuple[str, str], ...] | None = None
    scene: str | None = None  # OFFER: the negotiation scene the terms belong to

    def bind(self, actor: str) -> Action:
        return Action(actor=actor, verb=self.verb, obj=self.obj, target=self.target, text=self.text, terms=self.terms)

    def label(self) -> str:
        v = self.verb.value.replace("_", " ")
        if self.verb is Verb.GIVE:
            return f"give {self.obj} to {self.target}"
        if self.verb is Verb.ASK:
            return f"ask {self.obj} about {self.target}"
        if self.verb is Verb.UNLOCK:
            return f"unlock {self.obj} with {self.target}"
        if self.verb is Verb.VOTE:
            return f"vote {self.text}"
        if self.verb is Verb.OFFER:
            return "offer " + " ".join(f"{k}={val}" for k, val in self.terms or ())
        return f"{v} {self.obj}" if self.obj else v


def tradeable_scenes(spec: Any) -> list[str]:
    """Negotiation scenes the player can open with ``trade``, in NPC order, once each."""
    out: dict[str, None] = {}
    for npc in spec.npcs.values():
        sid = npc.trade
        sc = spec.scenes.get(sid) if sid else None
        if isinstance(sc, NegotiationScene) and PLAYER in (p.id for p in sc.parties):
            out.setdefault(sid, None)
    return list(out)


def scene_outcomes(scene: Any) -> list[tuple[tuple[str, str], ...]]:
    """Every complete offer of a negotiation scene, as sorted ``(issue, value)`` tuples."""
    issues = list(scene.issues)
    out = []
    for values in itertools.product(*(scene.issues[i] for i in issues)):
        out.append(tuple(sorted(zip(issues, values))))
    return out


def _n_outcomes(scene: Any) -> int:
    n = 1
    for vals in scene.issues.values():
        n *= len(vals)
    return n


def build_templates(spec: Any) -> list[ActionTemplate]:
    """The world's action catalogue, in a fixed order that depends only on the spec.

    WAIT, LOOK, INVENTORY; GO for every direction used by any exit (in
    ``DIRECTIONS`` order); TAKE, DROP, EXAMINE, OPEN for each item; EXAMINE,
    TALK, TRADE for each NPC; GIVE each item to each NPC; ASK each NPC about each
    fact topic; UNLOCK each locked container with its key and each locked exit
    (``exit:<dir>``) with its key; ACCEPT, REJECT, WALK_AWAY; VOTE yes/no; and
    OFFER each complete outcome of each tradeable negotiation scene (scenes with
    more than ``MAX_OFFER_OUTCOMES`` outcomes are skipped).
    """
    t: list[ActionTemplate] = [ActionTemplate(Verb.WAIT), ActionTemplate(Verb.LOOK), ActionTemplate(Verb.INVENTORY)]
    used = {d for loc in spec.locations.values() for d in loc.exits}
    t += [ActionTemplate(Verb.GO, obj=d) for d in DIRECTIONS if d in used]
    items, npcs = list(spec.items), list(spec.npcs)
    for verb in (Verb.TAKE, Verb.DROP, Verb.EXAMINE, Verb.OPEN):
        t += [ActionTemplate(verb, obj=i) for i in items]
    for verb in (Verb.EXAMINE, Verb.TALK, Verb.TRADE):
        t += [ActionTemplate(verb, obj=n) for n in npcs]
    t += [ActionTemplate(Verb.GIVE, obj=i, target=n) for i in items for n in npcs]
    topics = predicates.world_topics(spec)
    t += [ActionTemplate(Verb.ASK, obj=n, target=topic) for n in npcs for topic in topics]
    for iid, item in spec.items.items():
        if item.container and item.locked_with is not None:
            t.append(ActionTemplate(Verb.UNLOCK, obj=iid, target=item.locked_with))
    seen: set[tuple[str, str]] = set()
    for loc in spec.locations.values():
        for d, lock in loc.locked.items():
            if (d, lock.key) not in seen:
                seen.add((d, lock.key))
                t.append(ActionTemplate(Verb.UNLOCK, obj=f"exit:{d}", target=lock.key))
    t += [ActionTemplate(Verb.ACCEPT), ActionTemplate(Verb.REJECT), ActionTemplate(Verb.WALK_AWAY)]
    t += [ActionTemplate(Verb.VOTE, text="yes"), ActionTemplate(Verb.VOTE, text="no")]
    for sid in tradeable_scenes(spec):
        scene = spec.scenes[sid]
        if _n_outcomes(scene) > MAX_OFFER_OUTCOMES:
            continue
        t += [ActionTemplate(Verb.OFFER, terms=terms, scene=sid) for terms in scene_outcomes(scene)]
    return t


_ITEM_VERBS = {Verb.TAKE: "take", Verb.DROP: "drop", Verb.EXAMINE: "examine_item", Verb.OPEN: "open"}
_NPC_VERBS = {Verb.EXAMINE: "examine_npc", Verb.TALK: "talk", Verb.TRADE: "trade"}
_SIMPLE = {Verb.ACCEPT: "accept", Verb.REJECT: "reject", Verb.WALK_AWAY: "walk_away", Verb.VOTE: "vote"}


class CatalogueIndex:
    """A world's catalogue indices grouped by what decides their mask bit (for a fast ``mask``)."""

    def __init__(self, spec: Any, templates: list[ActionTemplate]):
        self.spec = spec
        self.templates = tuple(templates)
        self.size = len(templates)
        self.always: list[int] = []
        self.by_obj: dict[str, dict[str, int]] = {k: {} for k in (*_ITEM_VERBS.values(), *_NPC_VERBS.values())}
        self.go: dict[str, int] = {}
        self.give: dict[tuple[str, str], int] = {}
        self.ask: dict[tuple[str, str], int] = {}
        self.unlock_item: list[tuple[int, str, str]] = []
        self.unlock_exit: dict[tuple[str, str], int] = {}
        self.simple: dict[str, list[int]] = {k: [] for k in _SIMPLE.values()}
        self.offer: dict[str, list[tuple[int, dict[str, str]]]] = {}
        for i, t in enumerate(templates):
            self._add(i, t)

    def _add(self, i: int, t: ActionTemplate) -> None:
        v, spec = t.verb, self.spec
        if v in (Verb.WAIT, Verb.LOOK, Verb.INVENTORY):
            self.always.append(i)
        elif v is Verb.GO:
            self.go[t.obj] = i  # type: ignore[index]
        elif v in _ITEM_VERBS and t.obj in spec.items:
            self.by_obj[_ITEM_VERBS[v]][t.obj] = i  # type: ignore[index]
        elif v in _NPC_VERBS and t.obj in spec.npcs:
            self.by_obj[_NPC_VERBS[v]][t.obj] = i  # type: ignore[index]
        elif v is Verb.GIVE:
            self.give[(t.obj, t.target)] = i  # type: ignore[index]
        elif v is Verb.ASK:
            self.ask[(t.obj, t.target)] = i  # type: ignore[index]
        elif v is Verb.UNLOCK and t.obj.startswith("exit:"):  # type: ignore[union-attr]
            self.unlock_exit[(t.obj[5:], t.target)] = i  # type: ignore[index]
        elif v is Verb.UNLOCK:
            self.unlock_item.append((i, t.obj, t.target))  # type: ignore[arg-type]
        elif v in _SIMPLE:
            self.simple[_SIMPLE[v]].append(i)
        elif v is Verb.OFFER:
            self.offer.setdefault(t.scene, []).append((i, dict(t.terms or ())))  # type: ignore[arg-type]

    def mask(self, eng: Any, agent: str) -> np.ndarray:
        """int8 vector over the catalogue: 1 where the action is plausible for ``agent`` now.

        WAIT, LOOK, INVENTORY: always. GO: an exit here that is not locked; TAKE: a reachable
        portable item not carried; DROP: carried; EXAMINE: a reachable item or an NPC here; OPEN:
        a reachable closed container that is not locked; TALK/ASK/GIVE: an NPC here (GIVE: an
        item carried; ASK: the topics ``predicates.askable`` lists); TRADE: the player, a
        merchant here, no open talks and no deal struck yet; UNLOCK: the key carried and the lock
        here and still locked; OFFER/ACCEPT/REJECT/WALK_AWAY: the player's legal moves in the
        open negotiation (offers and acceptances the buyer can pay for); VOTE: a council sitting
        here that the agent may vote in.
        """
        on = list(self.always)
        on += self._reach(eng, agent)
        on += self._people(eng, agent)
        on += self._scenes(eng, agent)
        mask = np.zeros(self.size, dtype=np.int8)
        mask[on] = 1
        return mask

    def _reach(self, eng: Any, agent: str) -> list[int]:
        """GO, TAKE, DROP, EXAMINE (items), OPEN and UNLOCK."""
        spec, st, obj = self.spec, eng.state, self.by_obj
        on = [self.go[d] for d in predicates.open_exits(spec, st, agent)]
        reach = dict(predicates.items_in_reach(spec, st, agent))
        carried = {i for i, place in reach.items() if place == predicates.CARRIED}
        for iid, place in reach.items():
            on.append(obj["examine_item"][iid])
            if place == predicates.CARRIED:
                on.append(obj["drop"][iid])
            elif spec.items[iid].portable:
                on.append(obj["take"][iid])
            if predicates.can_open(spec, st, agent, iid):
                on.append(obj["open"][iid])
        for i, box, key in self.unlock_item:
            if key in carried and box in reach and predicates.container_locked(spec, st, box):
                on.append(i)
        here = st.where[agent]
        for d, lock in spec.locations[here].locked.items():
            i = self.unlock_exit.get((d, lock.key))
            if i is not None and lock.key in carried and predicates.exit_locked(spec, st, here, d, agent):
                on.append(i)
        return on

    def _people(self, eng: Any, agent: str) -> list[int]:
        """EXAMINE (NPCs), TALK, ASK, GIVE and TRADE."""
        spec, st, obj = self.spec, eng.state, self.by_obj
        carried = st.items_in(agent)
        on: list[int] = []
        for n in predicates.npcs_here(spec, st, agent):
            on += [obj["examine_npc"][n], obj["talk"][n]]
            on += [self.ask[(n, topic)] for topic in predicates.askable(spec, st, agent, n)]
            on += [self.give[(iid, n)] for iid in carried]
            if agent == PLAYER and spec.npcs[n].trade is not None and eng.scenes.trade_refusal(agent, n) is None:
                on.append(obj["trade"][n])
        return on

    def _scenes(self, eng: Any, agent: str) -> list[int]:
        """The player's negotiation moves, and VOTE."""
        spec, st = self.spec, eng.state
        on: list[int] = []
        sid = st.active_scene if agent == PLAYER else None
        if sid is not None:
            session = eng.scenes.session(sid)
            legal = session.legal_moves(PLAYER)
            if "accept" in legal and predicates.affordable(spec, st, sid, PLAYER, session.standing_offer):
                on += self.simple["accept"]
            for move in ("reject", "walk_away"):
                if move in legal:
                    on += self.simple[move]
            if "offer" in legal:
                on += [i for i, terms in self.offer.get(sid, ()) if predicates.affordable(spec, st, sid, PLAYER, terms)]
        council = eng.scenes.council_here(agent)
        if council is not None and (agent == PLAYER or agent in (p.id for p in spec.scenes[council].participants)):
            on += self.simple["vote"]
        return on
