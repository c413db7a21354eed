"""What an actor perceives: its ``Observation`` (for the player also the parser's scope, the
names of what is in sight, the quest log and its own side of a scene), the decision at hand
(``decision``: the question put to it, the motion to vote on, the offer to answer), and each event
as an agent sees it (``as_seen``: no world-fact ids, no outcome metrics)."""

from __future__ import annotations

import dataclasses
from typing import Any

from game.core.types import PLAYER, Event, Observation, Request
from game.engine import predicates
from game.engine.quests import quest_log


def glance(engine: Any, actor: str) -> Observation:
    """What ``actor`` sees at a glance: where it is, what is in sight there, the exits, what it
    carries and its gold (the fields of ``observe`` that need no prose, parser scope, quest log or
    recent events; ``text`` is empty). Cheap enough to take after every event."""
    st = engine.state
    loc = st.where[actor]
    return Observation(
        actor=actor,
        turn=st.turn,
        location=loc,
        text="",
        visible=predicates.in_sight(st, actor),
        exits=tuple(engine.spec.locations[loc].exits),
        inventory=tuple(st.items_in(actor)),
        gold=st.gold.get(actor, 0),
    )


def observe(engine: Any, actor: str, request: Request | None = None) -> Observation:
    """What ``actor`` knows at the start of its turn (see ``game.core.types.Observation``); ``request``:
    what it is being asked to say right now (an NPC answering), which is then its decision."""
    st = engine.state
    base = glance(engine, actor)
    loc, visible, inventory = base.location, base.visible, base.inventory
    scene = scene_view(engine) if actor == PLAYER else None
    seen: dict[str, Any] = dict(scene=scene, recent=tuple(as_seen(e, actor) for e in engine.recent[actor]))
    if actor == PLAYER:  # a player is also shown its parser scope, the names and the quest log
        names = scope(engine, actor)
        named = dict.fromkeys((loc, *visible, *inventory, *(n.id for n in names.nouns)))
        seen.update(
            scope=names,
            briefing=f"{engine.spec.title}\n\n{engine.spec.intro.strip()}",
            names=tuple((i, engine.name(i)) for i in named),
            quests=quest_log(engine.spec, st),
            score=st.score,
            max_turns=engine.spec.max_turns,
        )
    seen["decision"] = decision(engine, actor, scene, seen["recent"], request)
    return dataclasses.replace(base, text=engine.describe(actor, loc), **seen)


def decision(
    engine: Any, actor: str, scene: dict[str, Any] | None, recent: tuple[Event, ...], request: Request | None = None
) -> str | None:
    """The decision ``actor`` faces, in words it could read for itself (public terms and what was
    said to it; never a utility, a reservation or a fact's truth): what it is asked to say
    (``request``), else the open negotiation's standing offer (for either party), else the council
    motion sitting here, else the last question someone put to it since its last turn."""
    if request is not None:
        return requested(engine, actor, request)
    talks = negotiation(engine, actor)
    if talks is not None:
        return talks
    if scene is not None and scene.get("type") == "council":
        return f"Council vote on the motion: {scene['motion']}"
    for ev in reversed(recent):
        if ev.actor != actor and ev.kind in ("say", "talk") and ev.text.rstrip().rstrip('"').endswith("?"):
            return ev.text
    return None


def negotiation(engine: Any, actor: str) -> str | None:
    """The open negotiation ``actor`` is a party to, and its standing offer (None: none)."""
    sid = engine.state.active_scene
    if sid is None:
        return None
    sc = engine.spec.scenes[sid]
    if actor not in (p.id for p in sc.parties):
        return None
    return f"Negotiating {sc.title}: standing offer {engine.scenes.session(sid).standing_offer}"


def requested(engine: Any, actor: str, request: Request) -> str:
    """What an NPC is asked to say, as its decision: the question, the greeting it answers, the
    council motion it speaks to, or its move in the negotiation."""
    asker = engine.name(request.asker)
    if request.kind == "ask":
        return f"{asker} asks you: what do you know about {(request.topic or '').replace('_', ' ')}?"
    if request.kind == "speech":
        return f"Council debate on the motion: {request.topic}"
    if request.kind == "haggle":
        talks = negotiation(engine, actor) or f"Haggling with {asker}"
        move = request.data.get("move", "offer")
        terms = ", ".join(f"{k}={v}" for k, v in (request.data.get("terms") or {}).items())
        return f"{talks}; your move: {move}" + (f" {terms}" if terms else "")
    return f"{asker} comes to talk with you."


def scene_view(engine: Any) -> dict[str, Any] | None:
    """The open negotiation, or the council sitting here, as the player is shown it: the
    public terms, the moves and stances so far, and the player's *own* preferences only."""
    st = engine.state
    if st.active_scene is not None:
        sid = st.active_scene
        sc, s = engine.spec.scenes[sid], engine.scenes.session(sid)
        own = next((p for p in sc.parties if p.id == PLAYER), None)
        return {
            "id": sid,
            "type": "negotiation",
            "title": sc.title,
            "turn": s.turn,
            "standing_offer": s.standing_offer,
            "round": s.round,
            "deadline": sc.deadline,
            "issues": {k: list(v) for k, v in sc.issues.items()},
            "parties": [p.id for p in sc.parties],
            "first": sc.first or sc.parties[0].id,
            "trade": sc.trade.model_dump() if sc.trade is not None else None,
            "history": [m.to_dict() for m in s.history],
            "you": own.model_dump() if own is not None else None,
        }
    sid = engine.scenes.council_here(PLAYER)
    if sid is None:
        return None
    sc, cs = engine.spec.scenes[sid], st.scenes.get(sid, {})
    stances = cs.get("stances", {})
    declared = declared_stances(cs.get("debate", ()))
    return {
        "id": sid,
        "type": "council",
        "title": sc.title,
        "motion": sc.motion,
        "status": cs.get("status", "debating"),
        "round": cs.get("round", 0),
        "max_rounds": sc.max_rounds,
        "majority": sc.majority,
        "debate": sc.debate is not None,
        "members": [
            {
                "id": p.id,
                "role": p.role,
                "stance": stances.get(p.id, p.stance),
                **({"declared": declared[p.id]} if p.id in declared else {}),
            }
            for p in sc.participants
        ],
    }


def declared_stances(log: Any) -> dict[str, float]:
    """Each member's stance as it last declared it in a debating council (what anyone in the
    chamber heard; the debate's log, ``game.play.council_debate``)."""
    out: dict[str, float] = {}
    for op in log if isinstance(log, list) else ():
        if not isinstance(op, dict):
            continue
        if op.get("op") == "say":
            out[op["member"]] = round(float(op["reply"]["stance"]), 3)
        elif op.get("op") == "bring":
            out[op["member"]] = round(float(op["stance"]), 3)
    return out


def scope(engine: Any, actor: str = PLAYER) -> Any:
    """What the parser may match for this actor right now."""
    from game.engine.nouns import Noun, Scope

    st, spec = engine.state, engine.spec
    loc = st.where[actor]
    nouns: list[Noun] = []
    for iid, where in predicates.items_in_reach(spec, st, actor):
        it = spec.items[iid]
        nouns.append(
            Noun(
                id=iid,
                name=it.name,
                aliases=tuple(it.aliases),
                kind="item",
                where=where,
                portable=it.portable,
                light=it.light,
                container=it.container,
            )
        )
    for e in predicates.npcs_here(spec, st, actor):
        n = spec.npcs[e]
        nouns.append(Noun(id=e, name=n.name, aliases=tuple(n.aliases), kind="npc"))
    for d, lock in spec.locations[loc].locked.items():
        nouns.append(Noun(id=f"exit:{d}", name=lock.name, aliases=(f"{d} {lock.name}",), kind="exit", portable=False))
    for sid, thing in spec.locations[loc].scenery.items():
        nouns.append(
            Noun(id=f"scenery:{sid}", name=thing.name, aliases=tuple(thing.aliases), kind="scenery", portable=False)
        )
    negotiation = None
    if st.active_scene is not None:
        negotiation = {k: tuple(v) for k, v in spec.scenes[st.active_scene].issues.items()}
    return Scope(
        actor=actor,
        nouns=tuple(nouns),
        exits=tuple(spec.locations[loc].exits),
        topics=tuple(predicates.world_topics(spec)),
        negotiation=negotiation,
        council=engine.scenes.council_here(actor) is not None,
    )


PRIVATE_EVENT_DATA = ("metrics",)  # an outcome's analysis: both parties' utilities and reservations
ACTOR_ONLY_DATA = ("view", "from", "to")  # the actor's own view, and where it came from and went


def as_seen(ev: Event, viewer: str) -> Event:
    """An event as ``viewer`` perceives it. A claim keeps what was said (speaker, subject,
    relation, object, topic) but not which world fact it restates (``fact_id``), which with a
    container's ``reveals`` would tell whether it is true; a trade's outcome keeps its terms but
    not its ``metrics`` (the other party's utility and reservation); someone else's move keeps
    its direction but not the rooms it joins nor the view from there (``view``, ``from``, ``to``
    are the actor's own). Listeners and the transcript still get the whole event."""
    if not ev.data:
        return ev
    claims = ev.data.get("claims")
    hides_fact = bool(claims) and any(isinstance(c, dict) and "fact_id" in c for c in claims)
    hidden = PRIVATE_EVENT_DATA + (ACTOR_ONLY_DATA if ev.actor != viewer else ())
    private = [k for k in hidden if k in ev.data]
    if not hides_fact and not private:
        return ev
    data = {k: v for k, v in ev.data.items() if k not in private}
    if hides_fact:
        data["claims"] = [{k: v for k, v in c.items() if k != "fact_id"} if isinstance(c, dict) else c for c in claims]
    return dataclasses.replace(ev, data=data)
