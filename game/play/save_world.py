"""The second step of checking a save (the first is ``game.play.save_schema``): once its world is
found, every id in the save must name something of that world. Places, items, NPCs, scenes, quests
and facts of the engine state; the parties, moves and terms of a trade (its history is replayed);
the members of a council; the NPCs whose agents are saved, and the state each one's kind keeps;
and the scopes, speakers, witnesses and readers of agent
memory. The first problem is one ``SaveError`` naming file and field path.
Reads only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from game.core.errors import ParleyError
from game.core.types import PLAYER
from game.engine.state import NOWHERE
from game.negotiation.session import Negotiation
from game.play.replay_agents import fresh_agents
from game.play.save_schema import problem
from game.world.spec import CouncilScene


def check_save_world(data: dict[str, Any], world: Any, path: Path | str) -> None:
    """Refuse a save (already through ``save_schema.check_save``) with an id its world lacks."""
    for where, what in world_problems(data, world):
        raise problem(path, where, what)


def world_problems(data: dict[str, Any], world: Any):
    """(field path, what is wrong) for each id of the save its world does not know, in file order."""
    spec = world.spec
    st = data["engine"]["state"]
    entities = {PLAYER, *spec.npcs}
    holders = {*spec.locations, *spec.items, *entities, NOWHERE}

    def each(name: str, values: Any, known: Any, what: str):
        for i, v in enumerate(values):
            if v not in known:
                yield f"engine.state.{name}[{i}]", f"{v!r} is not {what}"

    for e, loc in st["where"].items():
        if e not in entities:
            yield f"engine.state.where.{e}", "not the player or an NPC of this world"
        elif loc not in spec.locations:
            yield f"engine.state.where.{e}", f"{loc!r} is not a known place"
    for name, table, want in (("where", st["where"], entities), ("item_at", st["item_at"], spec.items)):
        for e in want:  # a new game places everyone and everything; nothing leaves these tables
            if e not in table:
                yield f"engine.state.{name}.{e}", "missing"
    for e in entities:
        if e not in st["gold"]:
            yield f"engine.state.gold.{e}", "missing"
    yield from containment_problems(st["item_at"], spec.items)
    for i, h in st["item_at"].items():
        if i not in spec.items:
            yield f"engine.state.item_at.{i}", "not an item of this world"
        elif h not in holders:
            yield f"engine.state.item_at.{i}", f"{h!r} is not a known holder"
    for name in ("gold", "invalid"):
        for e in st[name]:
            if e not in entities:
                yield f"engine.state.{name}.{e}", "not the player or an NPC of this world"
    yield from each("opened", st["opened"], spec.items, "an item")
    yield from each("lit", st.get("lit", ()), spec.items, "an item")
    yield from each("quests_done", st["quests_done"], spec.quests, "a quest")
    unlockable = {*spec.items, *(f"{lid}:{d}" for lid, loc in spec.locations.items() for d in loc.exits)}
    yield from each("unlocked", st["unlocked"], unlockable, "an item or an exit (place:direction)")
    gifts = {f"{i}>{e}" for i in spec.items for e in entities}
    yield from each("gave", st["gave"], gifts, "a gift (item>npc)")
    for f in st["verified"]:
        if f not in spec.facts:
            yield f"engine.state.verified.{f}", "not a fact of this world"
    active = st["active_scene"]
    if active is not None and (active not in spec.scenes or isinstance(spec.scenes[active], CouncilScene)):
        yield "engine.state.active_scene", f"{active!r} is not a trade scene of this world"
    elif active is not None and st["scenes"].get(active, {}).get("outcome") is not None:
        yield "engine.state.active_scene", f"{active!r} is a trade that has closed"
    for sid, sc in st["scenes"].items():
        if sid not in spec.scenes:
            yield f"engine.state.scenes.{sid}", "not a scene of this world"
        else:
            yield from scene_problems(f"engine.state.scenes.{sid}", sc, spec.scenes[sid], entities)
    for e, events in data["engine"].get("recent", {}).items():
        if e not in entities:
            yield f"engine.recent.{e}", "not the player or an NPC of this world"
        for n, ev in enumerate(events):
            if ev.get("location") is not None and ev["location"] not in spec.locations:
                yield f"engine.recent.{e}[{n}].location", f"{ev['location']!r} is not a known place"
    yield from agent_problems(data, world)
    yield from memory_problems(data["components"].get("memory"), entities)
    yield from facts_problems(data["components"].get("facts"), entities)
    yield from time_problems(data)


def facts_problems(facts: dict[str, Any] | None, entities: set[str]):
    """World-fact memory speaks of the world's agents: Σ-Mem's peers and the speakers of the
    claims heard."""
    if facts is None:
        return
    for n, peer in enumerate(facts["sigma"]["peers"]):
        if peer not in entities:
            yield f"components.facts.sigma.peers[{n}]", f"{peer!r} is not an agent of this world"
    for n, claim in enumerate(facts.get("claims", ())):
        if claim["speaker"] not in entities:
            yield f"components.facts.claims[{n}].speaker", f"{claim['speaker']!r} is not an agent of this world"


def time_problems(data: dict[str, Any]):
    """Nothing saved happened after the save: every turn a record, event or decision names is at
    most the save's turn, every event's number at most the engine's count of events, and a
    record refers to other records, never to itself."""
    turn, seq = data["turn"], data["engine"]["seq"]
    for e, events in data["engine"].get("recent", {}).items():
        for n, ev in enumerate(events):
            if ev["turn"] > turn:
                yield f"engine.recent.{e}[{n}].turn", f"turn {ev['turn']} is after the save's turn {turn}"
            if ev["seq"] > seq:
                yield f"engine.recent.{e}[{n}].seq", f"event {ev['seq']} is past the engine's count of {seq} events"
    mem = data["components"].get("memory")
    for n, rec in enumerate(mem["bank"]["records"] if mem else ()):
        if rec["turn"] > turn:
            yield f"components.memory.bank.records[{n}].turn", f"turn {rec['turn']} is after the save's turn {turn}"
        if rec.get("last_access", 0) > turn:
            yield (
                f"components.memory.bank.records[{n}].last_access",
                f"turn {rec['last_access']} is after the save's turn {turn}",
            )
        if rec["id"] in rec.get("references", ()):
            yield f"components.memory.bank.records[{n}].references", f"{rec['id']!r} refers to itself"
    for agent, seen in (mem["bank"].get("access", {}) if mem else {}).items():
        for ref, at in seen.items():
            if at > turn:
                yield f"components.memory.bank.access.{agent}.{ref}", f"turn {at} is after the save's turn {turn}"
    facts = data["components"].get("facts") or {"gate": {}}
    turns = [(f"claims[{n}].turn", c["turn"]) for n, c in enumerate(facts.get("claims", ()))]
    turns += [(f"gate.facts[{n}].turn", f["turn"]) for n, f in enumerate(facts["gate"].get("facts", ()))]
    turns += [(f"witness.known[{n}].turn", k["turn"]) for n, k in enumerate(facts.get("witness", {}).get("known", ()))]
    turns += [
        (f"gate.heard.{key}[{n}]", h[1]) for key, hs in facts["gate"].get("heard", {}).items() for n, h in enumerate(hs)
    ]
    for where, at in turns:
        if isinstance(at, int) and at > turn:
            yield f"components.facts.{where}", f"turn {at} is after the save's turn {turn}"
    for n, dec in enumerate(facts["gate"].get("decisions", ())):
        for where, at in ((f"[{n}].turn", dec.get("turn")), (f"[{n}].candidate.turn", dec["candidate"].get("turn"))):
            if isinstance(at, int) and at > turn:
                yield f"components.facts.gate.decisions{where}", f"turn {at} is after the save's turn {turn}"


def memory_problems(mem: dict[str, Any] | None, entities: set[str]):
    """Agent memory belongs to the world's agents: private scopes, speakers, witnesses, readers."""
    if mem is None:
        return
    for n, rec in enumerate(mem["bank"]["records"]):
        scope = rec["scope"]
        if scope.startswith("private:") and scope.split(":", 1)[1] not in entities:
            yield f"components.memory.bank.records[{n}].scope", f"{scope!r} is not an agent of this world"
        if rec.get("speaker") is not None and rec["speaker"] not in entities:
            yield f"components.memory.bank.records[{n}].speaker", f"{rec['speaker']!r} is not an agent of this world"
    for name, keys in (
        ("witnesses", mem.get("witnesses", {})),
        ("bank.access", mem["bank"].get("access", {})),
        ("reflector.pressure", (mem.get("reflector") or {}).get("pressure", {})),
    ):
        for a in keys:
            if a not in entities:
                yield f"components.memory.{name}.{a}", "not an agent of this world"


def containment_problems(item_at: dict[str, str], items: Any):
    """An item inside itself, or in a ring of containers, has no place: each chain of holders
    must leave the items within as many steps as there are items."""
    for i in item_at:
        seen, h = {i}, item_at[i]
        while h in items and h not in seen:
            seen.add(h)
            h = item_at.get(h, "")
        if h in seen:
            yield f"engine.state.item_at.{h}", "it is inside itself (a ring of containers)"
            return


def scene_problems(where: str, saved: dict[str, Any], scene: Any, entities: set[str]):
    """A scene's saved state against the scene: its kind, parties and members, and a trade's history."""
    council = isinstance(scene, CouncilScene)
    if council != ("status" in saved):
        yield where, f"holds a {'trade' if council else 'council'}'s state; the world's scene is a {scene.type}"
        return
    if council:
        members = {p.id for p in scene.participants}
        yield from council_problems(where, saved, scene)
        for m in sorted(members - set(saved["stances"])):
            yield f"{where}.stances.{m}", "missing (every member of the council has a stance)"
        for key in ("stances", "votes"):
            for m in saved.get(key) or ():
                if m not in members:
                    yield f"{where}.{key}.{m}", "not a member of this council"
        for n, m in enumerate(saved.get("persuaded", ())):
            if m not in members:
                yield f"{where}.persuaded[{n}]", f"{m!r} is not a member of this council"
        for n, step in enumerate(saved.get("debate") or ()):
            if "member" in step and step["member"] not in members:
                yield f"{where}.debate[{n}].member", f"{step['member']!r} is not a member of this council"
        return
    session = saved.get("session")
    if session is None:
        return
    if list(session["parties"]) != [p.id for p in scene.parties]:
        yield f"{where}.session.parties", f"{session['parties']!r} are not the scene's parties"
        return
    talk = Negotiation(scene)
    try:
        talk.set_state(session)  # replays the history: every move and term checked
    except ParleyError as e:
        yield f"{where}.session", e.message
        return
    closed = None if talk.status == "open" else ("agreement" if talk.status == "agreement" else "no_agreement")
    if saved.get("outcome") != closed:
        yield f"{where}.outcome", f"{saved.get('outcome')!r}, but the negotiation it holds is {talk.status}"


def council_problems(where: str, saved: dict[str, Any], scene: Any):
    """A council's rounds and vote as its play leaves them: at most ``max_rounds`` rounds; while
    it debates, no vote; once it voted, every member's vote, and the outcome the votes give."""
    if saved["round"] > scene.max_rounds:
        yield f"{where}.round", f"round {saved['round']} is past the council's {scene.max_rounds} rounds"
    votes, status = saved.get("votes"), saved["status"]
    if status == "debating":
        if votes is not None:
            yield f"{where}.votes", "a council still debating has no votes"
        if saved.get("outcome") is not None:
            yield f"{where}.outcome", "a council still debating has no outcome"
        return
    members = [p.id for p in scene.participants]
    if votes is None or sorted(votes) != sorted(members):
        yield f"{where}.votes", f"a council that voted has a vote of each member ({', '.join(members)})"
        return
    share = sum(v == "yes" for v in votes.values()) / len(votes)
    result = "passed" if share > scene.majority else "failed"
    if status != result or saved.get("outcome", status) != status:
        yield f"{where}.status", f"the votes make the motion {result}, not {saved.get('outcome', status)}"


def agent_problems(data: dict[str, Any], world: Any):
    """Saved agents are the world's NPCs, each with the state its kind keeps (idle: none; a
    wanderer: its random stream; a patrol: its place on the route)."""
    saved = data["components"].get("agents", {})
    spec = world.spec
    for nid, st in saved.items():
        if nid not in spec.npcs:
            yield f"components.agents.{nid}", "not an NPC of this world"
    fresh = fresh_agents(world, data["seed"])
    for nid, st in saved.items():
        agent = fresh.get(nid)
        if agent is None:
            continue
        want = set(agent.get_state())
        got = {k for k, v in st.items() if v is not None}
        for k in sorted(want - got):
            yield f"components.agents.{nid}.{k}", f"missing (an NPC of kind {spec.npcs[nid].agent.kind} keeps it)"
        for k in sorted(got - want):
            yield f"components.agents.{nid}.{k}", f"unknown key (an NPC of kind {spec.npcs[nid].agent.kind} keeps none)"
        route = getattr(getattr(agent, "body", agent), "route", None)
        if route is not None and isinstance(st.get("i"), int) and st["i"] >= max(1, len(route)):
            yield f"components.agents.{nid}.i", f"{st['i']} is past the end of its route of {len(route)}"
