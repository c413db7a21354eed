"""Lessons from a game: what a finished (or abandoned) game teaches one agent.

:func:`distill` turns a game into short, concrete lessons: which NPCs' claims
proved true or false, how each negotiation ended and at what utility, how each
quest was completed, which evidence swayed the council, which moves the rules
refused. The rules work offline from the engine state and the event log; an
optional ``summarise`` callable (an LLM, when one is configured) adds its own
lines on top. :func:`update_from_game` files the lessons in an
:class:`~memory.insights.InsightBank`.

This module imports no LLM, embedding or vector-store library.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from game.core.claims import same_value, verdict
from game.core.types import PLAYER, Event, EventKind
from memory.insights import MAX_TEXT, Insight, InsightBank, _round, clip, near_duplicate, words

TOPICS = ("quest", "trust", "negotiation", "council", "exploration", "moves", "general")
LLM_WEIGHT = 0.75  # summariser lines start less trusted than rule lines
MAX_LLM_LINES = 5

Lesson = tuple[str, str, float]  # (topic, text, weight)


def _as_dict(state: Any) -> dict[str, Any]:
    if hasattr(state, "to_dict"):
        return state.to_dict()
    if isinstance(state, Mapping):
        if "quests_done" not in state and isinstance(state.get("state"), Mapping):
            return dict(state["state"])  # Engine.get_state(), as saves hold it
        return dict(state)
    raise TypeError(f"engine_state must be a GameState or its to_dict(), got {type(state).__name__}")


def _as_events(events: Iterable[Any] | None) -> list[Event]:
    out = []
    for ev in events or ():
        if isinstance(ev, Event):
            out.append(ev)
        elif isinstance(ev, Mapping):  # a transcript record or Event.to_dict()
            if ev.get("type", "event") == "event":
                out.append(Event.from_dict(ev))
        else:
            raise TypeError(f"events must be Event objects or dicts, got {type(ev).__name__}")
    return out


class _Ctx:
    """What the rules need: the spec, the state as a dict, the agent's view of events."""

    def __init__(self, world_spec: Any, engine_state: Any, events: Iterable[Any] | None, agent_id: str):
        self.spec = getattr(world_spec, "spec", world_spec)  # a World or its WorldSpec
        self.state = _as_dict(engine_state)
        self.agent = agent_id
        self.events = [e for e in _as_events(events) if e.actor == agent_id or agent_id in e.perceivers]

    def scene_order(self) -> list[str]:
        """Scene ids in the state, in the order the agent's events first mention them, then by id."""
        first: dict[str, int] = {}
        for ev in self.events:
            sid = ev.data.get("scene")
            if isinstance(sid, str):
                first.setdefault(sid, ev.seq)
        scenes = self.state.get("scenes", {})
        return sorted(scenes, key=lambda s: (first.get(s, 1 << 62), s))

    def name(self, ident: str | None) -> str:
        s = self.spec
        if ident == PLAYER:
            return "you" if self.agent == PLAYER else s.player.name
        for table in (s.npcs, s.items, s.locations):
            if ident in table:
                return table[ident].name
        return str(ident)

    def the(self, item: str) -> str:
        n = self.name(item)
        return n if n[:1].isupper() or n[:4].lower() == "the " else f"the {n}"


def _truth(ctx: _Ctx) -> dict[str, bool]:
    truth = {k: bool(v) for k, v in ctx.state.get("verified", {}).items()}
    for ev in ctx.events:
        if ev.kind == EventKind.VERIFY:
            truth.update({k: bool(v) for k, v in ev.data.get("truth", {}).items()})
    return truth


def _same_triple(f: Any, claim: Mapping[str, Any]) -> bool:
    return (
        same_value(f.subject, claim.get("subject"))
        and same_value(f.relation, claim.get("relation"))
        and same_value(f.object, claim.get("object"))
    )


def _judge(ctx: _Ctx, claim: Mapping[str, Any], truth: Mapping[str, bool]) -> bool | None:
    """True/False when the game verified the claim (or a contradicting fact), else None."""
    s, r = claim.get("subject"), claim.get("relation")
    rel = ctx.spec.relations.get(r)
    known = [
        (f.object, truth[fid])
        for fid, f in ctx.spec.facts.items()
        if fid in truth and same_value(f.subject, s) and same_value(f.relation, r)
    ]
    return verdict(known, claim.get("object"), functional=rel is not None and rel.functional)


def _trust_lessons(ctx: _Ctx) -> list[Lesson]:
    truth = _truth(ctx)
    verdicts: dict[tuple[str, str], list[tuple[bool, str]]] = {}
    for ev in ctx.events:
        if ev.kind != EventKind.SAY or ev.actor == ctx.agent:
            continue
        for claim in ev.data.get("claims", ()):
            v = _judge(ctx, claim, truth)
            if v is None:
                continue
            text = next((f.text for f in ctx.spec.facts.values() if _same_triple(f, claim)), "")
            verdicts.setdefault((ev.actor, str(claim.get("topic", "?"))), []).append((v, text))
    out = []
    for (speaker, topic), vs in sorted(verdicts.items()):
        n_true = sum(v for v, _ in vs)
        n_false = len(vs) - n_true
        who, about = ctx.name(speaker), topic.replace("_", " ")
        checked = f"{len(vs)} claim{'s' if len(vs) != 1 else ''} checked"
        if n_false == 0:
            out.append(
                ("trust", f"{who}'s claims about {about} proved true ({checked})", min(2.0, 1.0 + 0.25 * (len(vs) - 1)))
            )
        else:
            lie = next(t for v, t in vs if not v)
            verdict = "proved false" if n_true == 0 else f"were mixed ({n_true} true, {n_false} false)"
            head = f"{who}'s claims about {about} {verdict}"
            room = MAX_TEXT - len(head) - 4
            example = f': "{clip(lie, room)}"' if lie and room >= 20 else ""
            out.append(("trust", head + example, min(2.0, 1.25 + 0.25 * (n_false - 1))))
    return out


def _terms_text(terms: Mapping[str, Any] | None) -> str:
    return ", ".join(f"{k}={v}" for k, v in terms.items()) if terms else "nothing"


def _negotiation_lessons(ctx: _Ctx) -> list[Lesson]:
    out = []
    for sid in ctx.scene_order():
        sc = ctx.state["scenes"][sid]
        sess = sc.get("session") if isinstance(sc, Mapping) else None
        scene = ctx.spec.scenes.get(sid)
        if not isinstance(sess, Mapping) or scene is None or ctx.agent not in sess.get("parties", ()):
            continue
        other = next((p for p in sess["parties"] if p != ctx.agent), "?")
        history = sess.get("history", [])
        rounds = max((m.get("round", 1) for m in history), default=0)
        rtext = f"{rounds} round{'s' if rounds != 1 else ''}"
        where = f"Trade for {scene.title} with {ctx.name(other)}"
        metrics = sc.get("metrics") or {}
        status = sess.get("status", "open")
        mine = [m for m in history if m.get("party") == ctx.agent and m.get("kind") == "offer"]
        opening = _terms_text(mine[0].get("terms")) if mine else None
        if status == "open":
            out.append(
                (
                    "negotiation",
                    f"{where} was left open at round {sess.get('round', rounds)}; close talks before leaving",
                    0.75,
                )
            )
            continue
        u = (metrics.get("utilities") or {}).get(ctx.agent)
        res = (metrics.get("reservations") or {}).get(ctx.agent)
        nash_u = (metrics.get("nash_utilities") or {}).get(ctx.agent)
        if status == "agreement":
            agreed = _terms_text(sess.get("agreement"))
            last = history[-1] if history else {}
            if len(mine) == 1 and opening == agreed:
                how = f"opening at {opening} closed the deal"
            elif last.get("party") == ctx.agent and last.get("kind") == "accept":
                how = f"accepting {ctx.name(other)}'s offer of {agreed} closed the deal"
            else:
                how = f"reached a deal on {agreed}"
            util = f"; own utility {u:.2f}" if isinstance(u, (int, float)) else ""
            out.append(("negotiation", f"{where}: {how} in {rtext}{util}", 1.0))
            if isinstance(u, (int, float)) and isinstance(nash_u, (int, float)):
                nash = _terms_text(metrics.get("nash_terms"))
                if u + 0.05 < nash_u:
                    out.append(
                        (
                            "negotiation",
                            f"{where}: the Nash point ({nash}) was worth {nash_u:.2f}, "
                            f"the deal {u:.2f}; open nearer it, concede slowly",
                            1.25,
                        )
                    )
                else:
                    out.append(
                        (
                            "negotiation",
                            f"{where}: the deal was worth {u:.2f}, at or above the "
                            f"Nash point ({nash}); keep that approach",
                            1.0,
                        )
                    )
        else:
            by = sess.get("walked_away_by")
            ended = (
                f"{'you' if by == ctx.agent else ctx.name(by)} walked away"
                if status == "walked_away"
                else "the deadline passed"
            )
            theirs = [m for m in history if m.get("party") == other and m.get("kind") == "offer"]
            last = f" ({ctx.name(other)} last offered {_terms_text(theirs[-1].get('terms'))})" if theirs else ""
            value = f", reservation utility {res:.2f}" if isinstance(res, (int, float)) else ""
            start = f" after opening at {opening}" if opening else ""
            out.append(("negotiation", f"{where}: no deal{start}; {ended} in round {rounds}{last}{value}", 1.25))
    return out


def _goal_phrase(ctx: _Ctx, g: Any) -> str:
    k = g.kind
    if k == "gave":
        return f"giving {ctx.the(g.item)} to {ctx.name(g.npc)}"
    if k == "has":
        return f"getting {ctx.the(g.item)}"
    if k == "opened":
        return f"opening {ctx.the(g.item)}"
    if k == "at":
        return f"reaching {ctx.name(g.location)}"
    if k == "item_at":
        return f"bringing {ctx.the(g.item)} to {ctx.name(g.location)}"
    if k == "scene":
        sc = ctx.spec.scenes.get(g.scene)
        title = sc.title if sc is not None else g.scene
        return {
            "agreement": f"striking a deal for {title}",
            "passed": f"passing the vote on {title}",
            "failed": f"defeating the vote on {title}",
        }.get(g.outcome, f"{g.outcome} in {title}")
    return k


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _quest_lessons(ctx: _Ctx) -> list[Lesson]:
    if ctx.agent != PLAYER:
        return []
    st, quests = ctx.state, ctx.spec.quests
    done = [q for q in st.get("quests_done", []) if q in quests]
    when = {ev.data.get("quest"): ev.turn for ev in ctx.events if ev.kind == EventKind.QUEST}
    turn = st.get("turn", 0)
    if st.get("won"):
        head = f"Won in {turn} turns with score {st.get('score', 0)} ({len(done)}/{len(quests)} quests)"
    else:
        why = "turn limit reached" if st.get("done") else "game unfinished"
        head = f"Not won: {len(done)}/{len(quests)} quests, score {st.get('score', 0)} after {turn} turns ({why})"
    out: list[Lesson] = [("quest", head, 1.0)]
    for qid in done:
        q = quests[qid]
        at = f" (turn {when[qid]})" if qid in when else ""
        how = _and([_goal_phrase(ctx, g) for g in q.goal])
        out.append(("quest", f"Quest '{q.title}' was completed by {how}{at}", 1.0))
    for qid in quests:
        if qid not in done:
            out.append(("quest", f"Quest '{quests[qid].title}' was not completed in {turn} turns", 0.75))
    return out


def _council_lessons(ctx: _Ctx) -> list[Lesson]:
    out = []
    persuaded: dict[str, list[tuple[str, str]]] = {}
    for ev in ctx.events:
        if ev.kind == EventKind.PERSUADED:
            persuaded.setdefault(ev.data.get("scene", ""), []).append((ev.actor, ev.data.get("item", "")))
    for sid in ctx.scene_order():
        cs = ctx.state["scenes"][sid]
        scene = ctx.spec.scenes.get(sid)
        if scene is None or getattr(scene, "type", None) != "council" or not isinstance(cs, Mapping):
            continue
        members = {p.id for p in scene.participants}
        if ctx.agent not in members and not any(ev.data.get("scene") == sid for ev in ctx.events):
            continue
        for who, item in persuaded.get(sid, []):
            out.append(
                (
                    "council",
                    f"Council '{scene.title}': giving {ctx.the(item)} to {ctx.name(who)} won their support",
                    1.25,
                )
            )
        outcome = cs.get("outcome")
        votes = cs.get("votes") or {}
        if outcome in ("passed", "failed"):
            yes = sum(v == "yes" for v in votes.values())
            noes = sorted(ctx.name(p) for p, v in votes.items() if v != "yes" and p != ctx.agent)
            against = f"; voted no: {', '.join(noes)}" if noes else ""
            out.append(
                ("council", f"Council '{scene.title}': the motion {outcome} {yes} to {len(votes) - yes}{against}", 1.0)
            )
        elif cs.get("status") == "debating":
            out.append(("council", f"Council '{scene.title}' never came to a vote", 0.75))
    return out


def _exploration_lessons(ctx: _Ctx) -> list[Lesson]:
    out = []
    seen: set[str] = set()
    for ev in ctx.events:
        if ev.actor != ctx.agent:
            continue
        if ev.kind == EventKind.UNLOCK:
            key = ev.data.get("key")
            if "exit" in ev.data:
                loc = ctx.spec.locations.get(ev.location or "")
                lock = loc.locked.get(ev.data["exit"]) if loc is not None else None
                what = f"the {lock.name if lock else ev.data['exit']} at {ctx.name(ev.location)}"
            else:
                what = ctx.the(ev.data.get("item", "?"))
            text = f"{what[:1].upper()}{what[1:]} opens with {ctx.the(key)}"
        elif ev.kind == EventKind.VERIFY:
            facts = [ctx.spec.facts[f] for f in ev.data.get("truth", {}) if f in ctx.spec.facts]
            topics = sorted({f.topic.replace("_", " ") for f in facts})
            how = (
                ev.text.split(":", 1)[0].removeprefix("Verified by ")
                if ev.text.startswith("Verified by ") and ":" in ev.text
                else "Evidence found"
            )
            text = (
                f"{how[:1].upper()}{how[1:]} verified {len(facts)} fact{'s' if len(facts) != 1 else ''} "
                f"about {', '.join(topics)}"
            )
        else:
            continue
        if text not in seen:
            seen.add(text)
            out.append(("exploration", text, 0.75))
    return out


def _invalid_lessons(ctx: _Ctx) -> list[Lesson]:
    mine = [ev for ev in ctx.events if ev.kind == EventKind.INVALID and ev.actor == ctx.agent]
    n = max(len(mine), int(ctx.state.get("invalid", {}).get(ctx.agent, 0)))
    if n == 0:
        return []
    moves = f"{n} move{'s were' if n != 1 else ' was'} refused"
    if not mine:
        return [("moves", moves, 0.5)]
    reasons = Counter(ev.text for ev in mine)
    reason, k = sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    verb = Counter(ev.data.get("verb", "?") for ev in mine if ev.text == reason).most_common(1)[0][0]
    return [("moves", f"{moves}; most common ({k}x, {verb}): {reason}", min(1.5, 0.5 + 0.1 * n))]


def _rule_lessons(ctx: _Ctx) -> list[Lesson]:
    out: list[Lesson] = []
    for part in (
        _quest_lessons,
        _trust_lessons,
        _negotiation_lessons,
        _council_lessons,
        _exploration_lessons,
        _invalid_lessons,
    ):
        for topic, text, weight in part(ctx):
            text = clip(text)
            if not any(near_duplicate(text, t) for _, t, _ in out):
                out.append((topic, text, _round(weight)))
    return out


def game_summary(
    world_spec: Any, engine_state: Any, events: Iterable[Any] | None, agent_key: str, agent_id: str
) -> str:
    """A compact text of the game, from the agent's side: what a summariser is given."""
    ctx = _Ctx(world_spec, engine_state, events, agent_id)
    return _summary(ctx, agent_key, _rule_lessons(ctx))


def _summary(ctx: _Ctx, agent_key: str, lessons: list[Lesson]) -> str:
    st = ctx.state
    lines = [
        f"World: {ctx.spec.title} ({ctx.spec.id}). Agent: {ctx.agent} (configuration {agent_key}).",
        f"Turns: {st.get('turn', 0)}; score {st.get('score', 0)}; "
        f"quests {len(st.get('quests_done', []))}/{len(ctx.spec.quests)}; "
        f"{'won' if st.get('won') else 'not won'}; refused moves {st.get('invalid', {}).get(ctx.agent, 0)}.",
        "Observed lessons:",
    ]
    lines += [f"- [{topic}] {text}" for topic, text, _ in lessons] or ["- (none)"]
    lines.append(
        f"Reply with at most {MAX_LLM_LINES} short lines (under {MAX_TEXT} characters each) "
        f"of advice for the next game; a line may start with a topic ({', '.join(TOPICS)}) and ':'."
    )
    return "\n".join(lines)


_BULLET = re.compile(r"^\s*(?:[-*\u2022]+|\d+[.)])\s*")


def _llm_lessons(summarise: Callable[[str], list[str]], summary: str, taken: list[str]) -> list[Lesson]:
    lines = summarise(summary)
    if isinstance(lines, str) or not isinstance(lines, (list, tuple)):
        raise TypeError(f"summarise must return a list of strings, got {type(lines).__name__}")
    out: list[Lesson] = []
    for line in lines:
        if not isinstance(line, str):
            raise TypeError(f"summarise returned a {type(line).__name__} line; expected strings")
        text = _BULLET.sub("", line).strip()
        topic = "general"
        head, sep, rest = text.partition(":")
        if sep and head.strip().lower() in TOPICS and rest.strip():
            topic, text = head.strip().lower(), rest.strip()
        text = clip(text)
        if not words(text) or any(near_duplicate(text, t) for t in taken):
            continue
        taken.append(text)
        out.append((topic, text, LLM_WEIGHT))
        if len(out) >= MAX_LLM_LINES:
            break
    return out


def distill_with_sources(
    world_spec: Any,
    engine_state: Any,
    events: Iterable[Any] | None,
    agent_key: str,
    agent_id: str,
    summarise: Callable[[str], list[str]] | None = None,
) -> list[tuple[str, str, float, str]]:
    """Like :func:`distill`, with each lesson's source ("rule" or "llm") as a fourth field."""
    ctx = _Ctx(world_spec, engine_state, events, agent_id)
    rules = _rule_lessons(ctx)
    out = [(t, x, w, "rule") for t, x, w in rules]
    if summarise is not None:
        taken = [x for _, x, _ in rules]
        out += [(t, x, w, "llm") for t, x, w in _llm_lessons(summarise, _summary(ctx, agent_key, rules), taken)]
    return out


def distill(
    world_spec: Any,
    engine_state: Any,
    events: Iterable[Any] | None,
    agent_key: str,
    agent_id: str,
    summarise: Callable[[str], list[str]] | None = None,
) -> list[Lesson]:
    """Lessons ``(topic, text, weight)`` from a finished or unfinished game, for one agent.

    ``world_spec`` is a WorldSpec (or a World), ``engine_state`` a GameState
    (or its ``to_dict()``), ``events`` the game's events (Event objects or
    transcript dicts); only events the agent acted in or perceived count.
    The rules run offline and give the same list, in the same order, for the
    same game. With ``summarise`` (an LLM, when one is configured) its lines
    for :func:`game_summary` are appended after the rule lessons.
    """
    return [
        (t, x, w)
        for t, x, w, _ in distill_with_sources(world_spec, engine_state, events, agent_key, agent_id, summarise)
    ]


def update_from_game(
    bank: InsightBank,
    world_spec: Any,
    engine_state: Any,
    events: Iterable[Any] | None,
    agent_key: str,
    agent_id: str,
    summarise: Callable[[str], list[str]] | None = None,
) -> list[Insight]:
    """Distil a game into ``bank`` under ``agent_key``: add or reinforce each lesson,
    decay the key's other insights, count the game and save. Returns the insights
    added or reinforced (some may have been evicted by the cap)."""
    lessons = distill_with_sources(world_spec, engine_state, events, agent_key, agent_id, summarise)
    touched = [bank.add(agent_key, text, topic, weight, source) for topic, text, weight, source in lessons]
    bank.decay(key=agent_key)
    bank.record_game()
    bank.save()
    return touched
