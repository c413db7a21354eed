"""A tournament config becomes scenarios and matches with stable ids.

Scenarios are resolved once (generated scenes, world scenes, imported sets) into plain dicts keyed
by a scenario id. A match is one game: a scenario, who holds which seat, who opens, a seed and a
repetition. Its id is a hash of the match's own content (the scenario's content, each seat's
competitor *spec*, not just its name, the opener, seed, repetition and limits), so renaming a
file or adding competitors leaves the other matches' ids alone, and ``--resume`` can tell what
has been played.

Negotiation: for each scenario, each ordered pair of competitors (self-play only when asked) takes
the scene's two parties in that order, and with ``openers = "both"`` plays once with each party
opening: every competitor plays every role and both opening positions. Adventure and council: each
competitor takes the player's seat in each world (scene), seed and repetition. Debate: each
competitor holds the council's seat (all its members) on each task, seed and repetition.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from game.core.errors import InputError, WorldError
from game.tournament.config import (Competitor, GeneratedScenarios, ImportedScenarios, TournamentConfig,
                                    WorldScenario, probe_utility)


class Match(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    kind: str
    scenario: str
    seats: dict[str, str]  # role (party id, or "player") -> competitor name, in role order
    opener: str | None = None
    seed: int
    rep: int

    @property
    def group(self) -> str:
        """Rows that form one rated game: a negotiation is its own; an adventure or council groups every
        competitor that played the same scenario instance."""
        return self.id if self.kind == "negotiation" else f"{self.scenario}|{self.seed}|{self.rep}"


def digest(obj: Any, n: int = 16) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:n]


def derived_seed(*parts: Any) -> int:
    """A seed in [0, 2**31) from any JSON-able parts: the same on every machine and backend."""
    return int(digest(list(parts), 8), 16) & 0x7FFFFFFF


# --- scenarios -----------------------------------------------------------------------------
def _world_path(world: str, base: Path) -> str:
    cand = base / world
    return str(cand.resolve()) if cand.exists() else world


def resolve_scenarios(cfg: TournamentConfig, base: Path) -> dict[str, dict[str, Any]]:
    """Scenario id -> {"scene": NegotiationScene dict (negotiation), "task": CouncilTask dict and
    "truth" (debate), "world": path, "scene_id": id, "human": human outcome or None}, in config order."""
    out: dict[str, dict[str, Any]] = {}
    origin: dict[str, str] = {}
    for n, src in enumerate(cfg.scenarios):
        where = f"scenarios[{n}]"
        try:
            found = _source(cfg, src, base, where)
        except WorldError:
            raise  # it names the world's files and every problem in them
        except InputError as e:
            raise InputError(e.message if e.message.startswith(where) else f"{where}: {e.message}",
                             hint=e.hint) from None
        if not found:
            raise InputError(f"{where}: no scenarios", hint="an imported set with none, or a limit of 0")
        for sid in found:
            if sid in out:
                raise InputError(f"{where}: scenario {sid!r} is also in {origin[sid]}",
                                 hint="each scenario id must be unique: give generated sets other seeds, import "
                                      "sets from differently named files, or list a world scene once")
            origin[sid] = where
        out.update(found)
    if cfg.kind == "negotiation":
        for sid, sc in out.items():
            parties = [p["id"] for p in sc["scene"]["parties"]]
            if len(parties) != 2:
                raise InputError(f"scenario {sid!r} has {len(parties)} parties; a match needs two")
            if cfg.deadline is not None:
                sc["scene"]["deadline"] = cfg.deadline
    return out


def _source(cfg: TournamentConfig, src: Any, base: Path, where: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    if isinstance(src, GeneratedScenarios) and cfg.kind == "debate":
        from game.tournament.debate import generated
        out.update(generated(src.generate, src.seed))
    elif isinstance(src, GeneratedScenarios):
        from game.negotiation.generate import random_scenes
        for i, scene in enumerate(random_scenes(src.generate, src.seed, src.deadline)):
            out[f"gen{src.seed}-{i}"] = {"scene": scene.model_dump(mode="json", exclude_none=True), "human": None}
    elif isinstance(src, ImportedScenarios):
        from game.tournament.importers import load_set
        path = base / src.imported
        items = load_set(path).scenarios
        for item in items[: src.limit] if src.limit else items:
            human = item.human.model_dump(mode="json") if item.human is not None else None
            out[item.id] = {"scene": item.scene.model_dump(mode="json", exclude_none=True), "human": human}
    else:
        out.update(_world_scenario(cfg, src, base, where))
    return out


def _world_scenario(cfg: TournamentConfig, src: WorldScenario, base: Path, where: str) -> dict[str, dict[str, Any]]:
    from game.core.errors import did_you_mean
    from game.play.worlds import load_world
    from game.negotiation.spec import NegotiationScene
    path = _world_path(src.world, base)
    world = load_world(path)
    content = digest(world.spec.model_dump(mode="json"))  # an edited world gives new match ids
    if cfg.kind == "adventure":
        return {world.spec.id: {"world": path, "scene_id": None, "human": None, "content": content}}
    scenes = world.spec.scenes
    want = NegotiationScene if cfg.kind == "negotiation" else None
    ok = [k for k, v in scenes.items() if (isinstance(v, want) if want else getattr(v, "type", "") == "council")]
    label = "negotiation" if want else "council"
    if src.scene not in ok:
        raise InputError(f"{where}: no {label} scene {src.scene!r} in world {world.spec.id}",
                         hint=did_you_mean(src.scene or "", ok) or f"{label} scenes: {', '.join(ok) or 'none'}")
    sid = f"{world.spec.id}:{src.scene}"
    if cfg.kind == "council":
        return {sid: {"world": path, "scene_id": src.scene, "human": None, "content": content}}
    if cfg.kind == "debate":
        from game.tournament.debate import from_scene
        return {sid: {**from_scene(world.spec, src.scene), "world": path, "scene_id": src.scene}}
    scene = scenes[src.scene]
    if any(p.id == "player" for p in scene.parties):
        raise InputError(f"{where}: scene {src.scene!r} has the player as a party",
                         hint="a negotiation tournament plays scenes between two NPCs")
    return {sid: {"scene": scene.model_dump(mode="json", exclude_none=True), "human": None}}


# --- matches -------------------------------------------------------------------------------
def _spec(c: Competitor, kind: str) -> dict[str, Any]:
    """What decides how a competitor plays: its name (rows carry it), its config and what that
    resolves to here: every parameter of a negotiator, defaults included (a changed default changes
    the ids, so ``--resume`` never mixes the two), and an LLM's endpoint and model from the
    environment."""
    spec = c.model_dump(mode="json", exclude={"masking"} if c.masking is None else None)
    if kind == "debate":
        from game.tournament.debate import effective
        spec["effective"] = effective(c)
    if kind == "negotiation" and c.agent != "llm":
        from agents.negotiators import from_kind, kind_params
        neg = from_kind(c.agent, probe_utility(), **c.params)
        spec["effective"] = {p: getattr(neg, p, None) for p in kind_params(c.agent)}
    elif c.agent == "llm" or c.llm is not None:
        from agents.llm.config import LLMConfig
        try:
            llm = LLMConfig.from_env(**(c.llm.settings() if c.llm else {}))
        except ValueError as err:
            raise InputError(f"competitor {c.name!r}: {err}") from None
        spec["effective"] = {**spec.get("effective", {}), "base_url": llm.base_url, "model": llm.model}
    return spec


def expand(cfg: TournamentConfig, scenarios: dict[str, dict[str, Any]]) -> list[Match]:
    """Every match of the round robin, in a fixed order."""
    names = [c.name for c in cfg.competitors]
    specs = {c.name: _spec(c, cfg.kind) for c in cfg.competitors}
    out: list[Match] = []
    limits = {"deadline": cfg.deadline, "turns": cfg.turns}
    for sid, sc in scenarios.items():
        content = digest(sc.get("scene") or sc.get("task") or [sid, sc.get("scene_id"), sc.get("content")])
        if cfg.kind == "negotiation":
            parties = [p["id"] for p in sc["scene"]["parties"]]
            scene_first = sc["scene"].get("first") or parties[0]
            openers = parties if cfg.openers == "both" else [scene_first]
            pairs = [(x, y) for x, y in itertools.product(names, names) if x != y or cfg.self_play]
            roles = [(dict(zip(parties, pair)), opener) for pair in pairs for opener in openers]
        else:
            role = "council" if cfg.kind == "debate" else "player"
            roles = [({role: n}, None) for n in names]
        for seed in cfg.seeds:
            for rep in range(cfg.repetitions):
                for seats, opener in roles:
                    key = {"kind": cfg.kind, "scenario": sid, "content": content, "opener": opener, "seed": seed,
                           "rep": rep, "limits": limits,
                           "seats": [[role, name, specs[name]] for role, name in seats.items()]}
                    out.append(Match(id=digest(key), kind=cfg.kind, scenario=sid, seats=seats, opener=opener,
                                     seed=seed, rep=rep))
    ids = [m.id for m in out]
    if len(set(ids)) != len(ids):  # two competitors with the same spec, or a scenario listed twice
        seen: set[str] = set()
        dup = next(m for m in out if m.id in seen or seen.add(m.id))  # type: ignore[func-returns-value]
        raise InputError(f"two matches are the same game ({dup.scenario}, {', '.join(dup.seats.values())})",
                         hint="two competitors have the same agent and params, or a scenario is listed twice; "
                              "give them different params or drop one")
    return out
