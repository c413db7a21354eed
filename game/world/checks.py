"""Cross-reference checks on a structurally valid ``WorldSpec``.

Each check yields a ``Problem`` with the field path, the bad value and a
'did you mean' hint. All problems are collected; nothing stops at the first.

Agent kinds and their parameters are checked against an ``AgentKinds`` (``game.core.protocols``) passed
in by the caller; this module never imports the ``agents`` package. Given none, the checks use
the standard one, ``game.play.wiring.agent_kinds()`` (the composition layer's view of
``agents.registry``), imported only then, so the result never depends on what was imported before.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from game.core.claims import canonical
from game.core.errors import Problem, did_you_mean
from game.core.protocols import AgentKinds
from game.core.types import PLAYER
from game.council.session import MAX_ROUNDS as DEBATE_ROUNDS
from game.negotiation.utility import MAX_OUTCOMES
from game.world.limits import crowd_problems, pair_problems
from game.world.measures import unit_problems
from game.world.spec import CouncilScene, NegotiationScene, WorldSpec


def _ref(kind: str, value: str, known, path: str) -> Problem:
    return Problem(
        f"unknown {kind} {value!r}",
        path=path,
        hint=did_you_mean(value, known) or f"known {_plural(kind)}: {', '.join(sorted(known)[:8])}",
    )


def _plural(kind: str) -> str:
    return kind[:-1] + "ies" if kind.endswith("y") and kind[-2:-1] not in "aeiou" else kind + "s"


def cross_reference(w: WorldSpec, agent_kinds: AgentKinds) -> list[Problem]:
    """Every cross-reference problem in ``w``; ``agent_kinds``: the kinds an NPC's agent may be."""
    return list(_check(w, agent_kinds))


def _check(w: WorldSpec, agent_kinds: AgentKinds) -> Iterator[Problem]:
    """Every problem, in the order an author reads the file: start and player, places, items,
    agents, lines, relations, NPCs, topics, quests, scenes."""
    placed = _Placement(set(w.items))
    yield from _player_problems(w, placed)
    yield from _location_problems(w, placed)
    yield from _item_problems(w, placed)
    yield from _containment_loops(w)
    yield from _agent_problems(w, agent_kinds)
    yield from _line_problems(w)
    yield from _relation_problems(w)
    yield from unit_problems(w)
    yield from _npc_problems(w, placed)
    yield from crowd_problems(w.npcs)
    yield from pair_problems(w)
    yield from _topic_problems(w)
    yield from _quest_problems(w, placed.at)
    for sid, sc in w.scenes.items():
        if isinstance(sc, NegotiationScene):
            yield from _negotiation_problems(w, sid, sc, placed.at)
        elif isinstance(sc, CouncilScene):
            yield from _council_problems(w, sid, sc)


class _Placement:
    """Where each item is first placed (a field path); an item may be placed once."""

    def __init__(self, items: set[str]):
        self.items = items
        self.at: dict[str, str] = {}

    def place(self, item: str, path: str) -> Iterator[Problem]:
        if item not in self.items:
            yield _ref("item", item, self.items, path)
        elif item in self.at:
            yield Problem(f"item {item!r} is placed twice", path=path, hint=f"already placed at {self.at[item]}")
        else:
            self.at[item] = path


def _player_problems(w: WorldSpec, placed: _Placement) -> Iterator[Problem]:
    locs, items = set(w.locations), set(w.items)
    if w.start not in locs:
        yield _ref("location", w.start, locs, "start")
    if w.player.location is not None and w.player.location not in locs:
        yield _ref("location", w.player.location, locs, "player.location")
    for i, it in enumerate(w.player.inventory):
        if it not in items:
            yield _ref("item", it, items, f"player.inventory[{i}]")
    for i, it in enumerate(w.player.inventory):
        if it in items:
            placed.at.setdefault(it, f"player.inventory[{i}]")


def _location_problems(w: WorldSpec, placed: _Placement) -> Iterator[Problem]:
    locs, items = set(w.locations), set(w.items)
    for lid, loc in w.locations.items():
        for d, dest in loc.exits.items():
            if dest not in locs:
                yield _ref("location", dest, locs, f"locations.{lid}.exits.{d}")
        for d, lock in loc.locked.items():
            if d not in loc.exits:
                yield Problem(
                    f"locked exit {d!r} has no matching exit",
                    path=f"locations.{lid}.locked.{d}",
                    hint=f"exits here: {', '.join(loc.exits) or 'none'}",
                )
            if lock.key not in items:
                yield _ref("item", lock.key, items, f"locations.{lid}.locked.{d}.key")
            elif lock.opens == "light" and not w.items[lock.key].light:
                yield Problem(
                    f"a lock opened by light needs a light source as its key, and {lock.key!r} is none",
                    path=f"locations.{lid}.locked.{d}.opens",
                    hint=f"set light = true on items.{lock.key}, or opens = 'unlock'",
                )
        for i, it in enumerate(loc.items):
            yield from placed.place(it, f"locations.{lid}.items[{i}]")


def _item_problems(w: WorldSpec, placed: _Placement) -> Iterator[Problem]:
    items = set(w.items)
    for iid, item in w.items.items():
        if item.contents and not item.container:
            yield Problem(
                "only a container can have contents", path=f"items.{iid}.contents", hint="set container = true"
            )
        for i, c in enumerate(item.contents):
            if c == iid:
                yield Problem("an item cannot contain itself", path=f"items.{iid}.contents[{i}]")
            else:
                yield from placed.place(c, f"items.{iid}.contents[{i}]")
        if item.locked_with is not None and item.locked_with not in items:
            yield _ref("item", item.locked_with, items, f"items.{iid}.locked_with")
        for field in ("reveals", "shows"):
            for i, f in enumerate(getattr(item, field)):
                if f not in w.facts:
                    yield _ref("fact", f, w.facts, f"items.{iid}.{field}[{i}]")


def _containment_loops(w: WorldSpec) -> Iterator[Problem]:
    """Containers must not (transitively) contain themselves."""
    items = set(w.items)
    parent: dict[str, str] = {}  # item -> the first container that lists it
    for cid, it in w.items.items():
        for c in it.contents:
            parent.setdefault(c, cid)
    for iid in items:
        seen, cur = set(), iid
        while cur in items and cur not in seen:
            seen.add(cur)
            cur = parent.get(cur)
        if cur == iid and len(seen) > 1:
            yield Problem(
                f"item {iid!r} ends up inside itself through containers",
                path=f"items.{iid}.contents",
                hint="containers cannot hold each other in a loop",
            )


def _npc_problems(w: WorldSpec, placed: _Placement) -> Iterator[Problem]:
    locs, items = set(w.locations), set(w.items)
    for nid, npc in w.npcs.items():
        if npc.location not in locs:
            yield _ref("location", npc.location, locs, f"npcs.{nid}.location")
        for i, it in enumerate(npc.inventory):
            yield from placed.place(it, f"npcs.{nid}.inventory[{i}]")
        for i, f in enumerate(npc.knowledge):
            if f not in w.facts:
                yield _ref("fact", f, w.facts, f"npcs.{nid}.knowledge[{i}]")
        for it in npc.wants:
            if it not in items:
                yield _ref("item", it, items, f"npcs.{nid}.wants.{it}")
        for it, said in npc.thanks.items():
            if it not in npc.wants:
                yield Problem(
                    f"thanks for {it!r}, which {nid} does not want",
                    path=f"npcs.{nid}.thanks.{it}",
                    hint=f"add {it} to npcs.{nid}.wants, or drop this line",
                )
            elif not said.strip():
                yield Problem("an empty thank-you line", path=f"npcs.{nid}.thanks.{it}")
        if npc.trade is not None:
            sc = w.scenes.get(npc.trade)
            if sc is None:
                yield _ref("scene", npc.trade, w.scenes, f"npcs.{nid}.trade")
            elif not isinstance(sc, NegotiationScene):
                yield Problem(f"scene {npc.trade!r} is not a negotiation", path=f"npcs.{nid}.trade")
            elif nid not in {p.id for p in sc.parties}:
                yield Problem(f"NPC {nid!r} is not a party of scene {npc.trade!r}", path=f"npcs.{nid}.trade")


def _topic_problems(w: WorldSpec) -> Iterator[Problem]:
    """Honesty profiles name known topics; facts name declared relations (when any are declared)."""
    topics = {f.topic for f in w.facts.values()}
    for nid, npc in w.npcs.items():
        for t in npc.honesty.topics:
            if t not in topics:
                yield _ref("topic", t, topics, f"npcs.{nid}.honesty.topics.{t}")
    for fid, fact in w.facts.items():
        if w.relations and fact.relation not in w.relations:
            yield _ref("relation", fact.relation, w.relations, f"facts.{fid}.relation")


def _quest_problems(w: WorldSpec, placed: dict[str, str]) -> Iterator[Problem]:
    locs, items, npcs = set(w.locations), set(w.items), set(w.npcs)
    for qid, q in w.quests.items():
        for i, c in enumerate(q.goal):
            path = f"quests.{qid}.goal[{i}]"
            if getattr(c, "item", None) is not None and c.item not in items:
                yield _ref("item", c.item, items, f"{path}.item")
            if getattr(c, "location", None) is not None and c.location not in locs:
                yield _ref("location", c.location, locs, f"{path}.location")
            if getattr(c, "npc", None) is not None and c.npc not in npcs:
                yield _ref("NPC", c.npc, npcs, f"{path}.npc")
            if getattr(c, "scene", None) is not None:
                if c.scene not in w.scenes:
                    yield _ref("scene", c.scene, w.scenes, f"{path}.scene")
                else:
                    ok = (
                        ("agreement", "no_agreement")
                        if isinstance(w.scenes[c.scene], NegotiationScene)
                        else ("passed", "failed")
                    )
                    if c.outcome not in ok:
                        yield Problem(
                            f"outcome {c.outcome!r} cannot happen in scene {c.scene!r}",
                            path=f"{path}.outcome",
                            hint=f"use one of: {', '.join(ok)}",
                        )
        for i, it in enumerate(q.reward.items):
            if it not in items:
                yield _ref("item", it, items, f"quests.{qid}.reward.items[{i}]")
            elif it in placed:
                yield Problem(
                    f"reward item {it!r} is already placed in the world",
                    path=f"quests.{qid}.reward.items[{i}]",
                    hint=f"rewards are created when the quest completes; remove it from {placed[it]}",
                )


def _negotiation_problems(w: WorldSpec, sid: str, sc: NegotiationScene, placed: dict[str, str]) -> Iterator[Problem]:
    base = f"scenes.{sid}"
    ids = [p.id for p in sc.parties]
    if len(ids) < 2:
        yield Problem(
            "a negotiation needs two parties",
            path=f"{base}.parties",
            hint="only a trade scene may leave out the player's party",
        )
    for i, p in enumerate(sc.parties):
        for key in ("weights", "values"):
            if getattr(p, key) is None:
                yield Problem(
                    f"missing required key {key!r}",
                    path=f"{base}.parties[{i}].{key}",
                    hint="only the player's party in a trade scene has a default"
                    if p.id != PLAYER or sc.trade is None
                    else None,
                )
    if any(p.weights is None or p.values is None for p in sc.parties):
        return
    parties_ok = set(w.npcs) | {PLAYER}
    for i, pid in enumerate(ids):
        if pid not in parties_ok:
            yield _ref("party", pid, parties_ok, f"{base}.parties[{i}].id")
    if len(set(ids)) != len(ids):
        yield Problem("the two parties must differ", path=f"{base}.parties")
    if sc.first is not None and sc.first not in ids:
        yield _ref("party", sc.first, ids, f"{base}.first")
    for i, p in enumerate(sc.parties):
        yield from _party_utility_problems(sc, p, f"{base}.parties[{i}]")
    yield from _issue_problems(sc, base)
    if sc.trade is not None:
        yield from _trade_problems(w, sc, base, placed)


def _party_utility_problems(sc: NegotiationScene, p, pp: str) -> Iterator[Problem]:
    """A party weighs and values every issue and value of the scene, and nothing else."""
    for issue in sc.issues:
        if issue not in p.weights:
            yield Problem(f"no weight for issue {issue!r}", path=f"{pp}.weights")
        if issue not in p.values:
            yield Problem(f"no values for issue {issue!r}", path=f"{pp}.values")
        else:
            for v in sc.issues[issue]:
                if v not in p.values[issue]:
                    yield Problem(f"no utility for value {v!r}", path=f"{pp}.values.{issue}")
    for issue in set(p.weights) | set(p.values):
        if issue not in sc.issues:
            yield _ref("issue", issue, sc.issues, f"{pp}.weights")
    if sum(p.weights.values()) <= 0:
        yield Problem("weights sum to zero", path=f"{pp}.weights", hint="give some issue a positive weight")


def _issue_problems(sc: NegotiationScene, base: str) -> Iterator[Problem]:
    size = 1
    for values in sc.issues.values():
        size *= max(1, len(values))
    if size > MAX_OUTCOMES:
        yield Problem(
            f"{size:,} possible deals (the product of the issues' value counts); the limit is {MAX_OUTCOMES:,}",
            path=f"{base}.issues",
            hint="use fewer issues or fewer values per issue",
        )
    for issue, values in sc.issues.items():
        if not values:
            yield Problem("an issue needs at least one value", path=f"{base}.issues.{issue}")
        elif len(set(values)) != len(values):
            yield Problem("duplicate values", path=f"{base}.issues.{issue}")


def _trade_problems(w: WorldSpec, sc: NegotiationScene, base: str, placed: dict[str, str]) -> Iterator[Problem]:
    """The traded item exists and starts with the seller; the price issue lists whole numbers."""
    t, items, npcs = sc.trade, set(w.items), set(w.npcs)
    ids = [p.id for p in sc.parties]
    if t.item not in items:
        yield _ref("item", t.item, items, f"{base}.trade.item")
    if t.seller not in ids:
        yield _ref("party", t.seller, ids, f"{base}.trade.seller")
    if t.price_issue not in sc.issues:
        yield _ref("issue", t.price_issue, sc.issues, f"{base}.trade.price_issue")
    else:
        for v in sc.issues[t.price_issue]:
            if not re.fullmatch(r"[0-9]+", v):
                yield Problem(f"price value {v!r} is not a whole number of gold", path=f"{base}.issues.{t.price_issue}")
    held = placed.get(t.item, "")
    if t.seller in npcs and held != "" and not held.startswith(f"npcs.{t.seller}.inventory"):
        yield Problem(
            f"seller {t.seller!r} does not start with the item {t.item!r}",
            path=f"{base}.trade.item",
            hint=f"put it in npcs.{t.seller}.inventory (it is placed at {held})",
        )
    elif t.seller in npcs and held == "":
        yield Problem(
            f"seller {t.seller!r} does not start with the item {t.item!r}",
            path=f"{base}.trade.item",
            hint=f"add it to npcs.{t.seller}.inventory",
        )


def _council_problems(w: WorldSpec, sid: str, sc: CouncilScene) -> Iterator[Problem]:
    base, items, locs = f"scenes.{sid}", set(w.items), set(w.locations)
    parties_ok = set(w.npcs) | {PLAYER}
    seen = set()
    for i, p in enumerate(sc.participants):
        if p.id not in parties_ok:
            yield _ref("participant", p.id, parties_ok, f"{base}.participants[{i}].id")
        if p.id in seen:
            yield Problem(f"participant {p.id!r} listed twice", path=f"{base}.participants[{i}].id")
        seen.add(p.id)
        for j, it in enumerate(p.persuaded_by):
            if it not in items:
                yield _ref("item", it, items, f"{base}.participants[{i}].persuaded_by[{j}]")
    if sc.location is not None and sc.location not in locs:
        yield _ref("location", sc.location, locs, f"{base}.location")
    if sc.debate is not None:
        npcs = [p.id for p in sc.participants if p.id != PLAYER]
        if len(npcs) < 2:
            yield Problem(
                f"a debating council needs at least two NPC members, this one has {len(npcs)}",
                path=f"{base}.debate",
                hint="add participants, or remove the debate table",
            )
        if sc.max_rounds > DEBATE_ROUNDS:
            yield Problem(
                f"a debating council holds at most {DEBATE_ROUNDS} rounds, not {sc.max_rounds}",
                path=f"{base}.max_rounds",
            )


def _agent_problems(w: WorldSpec, agent_kinds: AgentKinds) -> Iterator[Problem]:
    """Agent kinds must exist, and their parameters must fit the kind's parameter model in
    ``agent_kinds`` (for ``agents.registry``: the model ``create`` builds the agent from); locations
    named in a wanderer's ``moves`` or a patrol's ``route`` must exist, and a route must follow exits."""
    known, llm_kinds = agent_kinds.kinds(), agent_kinds.LLM_KINDS
    locs = w.locations
    for nid, npc in w.npcs.items():
        path = f"npcs.{nid}.agent"
        kind, params = npc.agent.kind, npc.agent.params
        if kind not in known:
            yield _ref("agent kind", kind, known, f"{path}.kind")
            continue
        problems = agent_kinds.params_problems(kind, params)
        for p in problems:
            yield Problem(p.message, path=f"{path}.params{p.path}", hint=p.hint)
        body, body_params, where = kind, params, f"{path}.params"
        if kind in llm_kinds:
            body, body_params = params.get("body", "idle"), params.get("body_params")
            where = f"{path}.params.body_params"
        if not isinstance(body_params, dict):
            continue

        def names(key: str) -> list[str] | None:  # a list of location ids, or None if malformed
            v = body_params.get(key)
            return v if isinstance(v, list) and v and all(isinstance(x, str) for x in v) else None

        if body == "wanderer":
            for i, loc in enumerate(names("moves") or []):
                if loc not in locs:
                    yield _ref("location", loc, locs, f"{where}.moves[{i}]")
        elif body == "patrol" and names("route") is not None:
            route = names("route") or []
            bad = False
            for i, loc in enumerate(route):
                if loc not in locs:
                    bad = True
                    yield _ref("location", loc, locs, f"{where}.route[{i}]")
            if bad:
                continue
            if route[0] != npc.location:
                yield Problem(
                    f"the patrol route starts at {route[0]!r} but the NPC starts at {npc.location!r}",
                    path=f"{where}.route[0]",
                    hint=f"start the route at {npc.location!r}",
                )
            for i in range(len(route) if len(route) > 1 else 0):
                here, there = route[i], route[(i + 1) % len(route)]
                if here != there and there not in locs[here].exits.values():
                    j = (i + 1) % len(route)
                    yield Problem(
                        f"no exit from {here!r} to {there!r} on the patrol route",
                        path=f"{where}.route[{j}]",
                        hint="a patrol walks one exit per turn (and from the last stop back to the "
                        "first); list every location on the way",
                    )


TEMPLATE_FIELDS = {
    "greet": {"name", "player"},
    "answer": {"name", "player", "text", "topic"},
    "refuse": {"name", "player", "topic"},
    "rumour": {"name", "player", "text", "topic"},
    "haggle": {"name", "player", "terms"},
}


def _line_problems(w: WorldSpec) -> Iterator[Problem]:
    """Dialogue templates may use only their intent's placeholders, and must be well formed."""
    from string import Formatter

    for nid, npc in w.npcs.items():
        for intent, bank in npc.lines.items():
            allowed = TEMPLATE_FIELDS[intent]
            for i, line in enumerate(bank):
                path = f"npcs.{nid}.lines.{intent}[{i}]"
                try:
                    fields = [(f, spec, conv) for _, f, spec, conv in Formatter().parse(line) if f is not None]
                except ValueError as e:
                    yield Problem(
                        f"malformed template {line!r}: {e}", path=path, hint="write a literal brace as {{ or }}"
                    )
                    continue
                for name, spec, conv in fields:
                    if spec or conv:
                        yield Problem(
                            f"placeholder {{{name}}} in {line!r} has a format spec or conversion",
                            path=path,
                            hint="write plain placeholders such as {name}",
                        )
                names = [f for f, _, _ in fields]
                for name in names:
                    if name not in allowed:
                        yield Problem(
                            f"unknown placeholder {{{name}}} in a {intent} line",
                            path=path,
                            hint=did_you_mean(name, allowed)
                            or f"{intent} lines may use {', '.join('{' + a + '}' for a in sorted(allowed))}",
                        )


def _relation_problems(w: WorldSpec) -> Iterator[Problem]:
    """Numeric ranges and gate thresholds must be ordered (low before high)."""
    import math

    for rid, r in w.relations.items():
        if r.range is not None and not all(math.isfinite(x) for x in r.range):
            yield Problem(f"range {list(r.range)} must be two finite numbers", path=f"relations.{rid}.range")
        elif r.range is not None and r.range[0] > r.range[1]:
            yield Problem(
                f"range low {r.range[0]:g} is above high {r.range[1]:g}",
                path=f"relations.{rid}.range",
                hint="write range = [low, high]",
            )
        if r.thresholds is not None and r.thresholds[0] > r.thresholds[1]:
            yield Problem(
                f"threshold to reject ({r.thresholds[0]:g}) is above the threshold to admit ({r.thresholds[1]:g})",
                path=f"relations.{rid}.thresholds",
                hint="write thresholds = [reject below, admit from]",
            )
    named: dict[str, str] = {canonical(rid): rid for rid in w.relations}
    for rid, r in w.relations.items():
        for i, alias in enumerate(r.aliases):
            other = named.setdefault(canonical(alias), rid)
            if other != rid:
                yield Problem(
                    f"alias {alias!r} also names relation {other!r}",
                    path=f"relations.{rid}.aliases[{i}]",
                    hint="a word may name one relation only; claims using it would be ambiguous",
                )
    for fid, f in w.facts.items():
        r = w.relations.get(f.relation)
        if r is None or r.range is None or not f.true or not all(math.isfinite(x) for x in r.range):
            continue
        try:
            x = float(f.object)
        except ValueError:
            x = None
        if x is None or not r.range[0] <= x <= r.range[1]:
            yield Problem(
                f"a true fact's object {f.object!r} is not a number in the range "
                f"[{r.range[0]:g}, {r.range[1]:g}] of {f.relation!r}",
                path=f"facts.{fid}.object",
                hint="the consistency gate would reject every NPC who tells it",
            )
