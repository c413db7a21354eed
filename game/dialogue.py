"""Talking to NPCs: greetings, topics, and answers shaped by per-topic honesty.

Asked about a topic, an NPC picks among the facts it knows on that topic (or
about that subject). With probability ``honesty.for_topic(topic)`` it tells a
true one when it knows one; otherwise it tells a false one it knows (a lie or a
mistaken belief). Each answer carries structured claims, so the consistency
gate and the reliability memory can use them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from game.rules import Refusal
from game.types import Action, Claim

if TYPE_CHECKING:
    from game.engine import Engine


def _norm(s: str) -> str:
    return s.lower().replace("_", " ").replace("-", " ").strip()


def topics_of(eng: Engine, npc: str) -> list[str]:
    seen: dict[str, None] = {}
    for fid in eng.spec.npcs[npc].knowledge:
        seen.setdefault(eng.spec.facts[fid].topic, None)
    return list(seen)


def all_topics(eng: Engine) -> list[str]:
    return list(dict.fromkeys(f.topic for f in eng.spec.facts.values()))


def matching_facts(eng: Engine, npc: str, topic: str) -> list[str]:
    """Facts the NPC knows whose topic, subject or object matches the asked topic."""
    want = _norm(topic)
    out = []
    for fid in eng.spec.npcs[npc].knowledge:
        f = eng.spec.facts[fid]
        if want in (_norm(f.topic), _norm(f.subject)) or want == _norm(fid) or \
                (len(want) > 2 and want in _norm(f.subject).split()):
            out.append(fid)
    return out


def _listener(eng: Engine, a: Action) -> str:
    npc = a.obj
    if npc not in eng.spec.npcs:
        raise Refusal("Talk to whom?")
    if eng.state.where.get(npc) != eng.state.where[a.actor]:
        raise Refusal(f"{eng.name(npc)} is not here.")
    return npc


def do_talk(eng: Engine, a: Action) -> None:
    npc = _listener(eng, a)
    spec = eng.spec.npcs[npc]
    greeting = spec.greeting or f"{spec.name} nods at you."
    topics = topics_of(eng, npc)
    extra = f" ({spec.name} could tell you about: {', '.join(t.replace('_', ' ') for t in topics)}.)" if topics else ""
    if spec.trade:
        extra += f" ({spec.name} is open to trade.)"
    eng.emit("talk", a.actor, f'{spec.name} says: "{greeting}"', listener=npc,
             view=f'{spec.name} says: "{greeting}"{extra}', data={"npc": npc, "topics": topics})


def do_ask(eng: Engine, a: Action) -> None:
    npc = _listener(eng, a)
    spec = eng.spec.npcs[npc]
    topic = a.target or ""
    facts = matching_facts(eng, npc, topic)
    if not facts:
        eng.emit("say", npc, f'{spec.name} says: "I know nothing about {topic.replace("_", " ")}."',
                 listener=a.actor, data={"topic": topic, "claims": [], "asked_by": a.actor})
        return
    true = [f for f in facts if eng.spec.facts[f].true]
    false = [f for f in facts if not eng.spec.facts[f].true]
    honest = eng.rng.random() < spec.honesty.for_topic(eng.spec.facts[facts[0]].topic)
    pool = (true or false) if honest else (false or true)
    fid = pool[int(eng.rng.integers(len(pool)))] if len(pool) > 1 else pool[0]
    f = eng.spec.facts[fid]
    claim = Claim(subject=f.subject, relation=f.relation, object=f.object, topic=f.topic,
                  speaker=npc, turn=eng.state.turn, fact_id=fid)
    eng.emit("say", npc, f'{spec.name} says: "{f.text}"', listener=a.actor,
             data={"topic": topic, "claims": [claim.to_dict()], "asked_by": a.actor})
