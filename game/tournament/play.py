"""One match played to a result row (the schema ``game.tournament.stats`` reads).

``run_batch(payload)`` is what every backend runs: a list of matches with the scenarios and
competitors they need, as plain JSON-able data, so the same call runs in-process, in a process
pool or on a Ray worker. A worker keeps the scenes' utilities and the rule negotiators between
the matches of its batch. Everything in a row but ``wall_time`` is determined by the match alone.
"""

from __future__ import annotations

import time
from typing import Any

from game.play.episode import _usage
from game.tournament.config import Competitor, TournamentConfig
from game.tournament.matches import Match, derived_seed, digest


_CONTEXTS: dict[str, _Context] = {}


def run_batch(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows for ``payload["matches"]`` in order (payload: ``config``, ``scenarios``, ``matches``).
    A worker keeps each tournament's parsed config and analysed scenes between batches."""
    key = digest(payload["config"])
    ctx = _CONTEXTS.get(key)
    if ctx is None:
        if len(_CONTEXTS) >= 4:
            _CONTEXTS.clear()
        ctx = _CONTEXTS[key] = _Context(TournamentConfig.model_validate(payload["config"]), {})
    ctx.add_scenarios(payload["scenarios"])
    return [play_match(Match.model_validate(m), ctx) for m in payload["matches"]]


class _Context:
    def __init__(self, cfg: TournamentConfig, scenarios: dict[str, dict[str, Any]]):
        self.cfg = cfg
        self.scenarios = scenarios
        self.comps = {c.name: c for c in cfg.competitors}
        self._scenes: dict[tuple[str, str | None], Any] = {}
        self._clients: dict[str, Any] = {}

    def add_scenarios(self, scenarios: dict[str, dict[str, Any]]) -> None:
        for sid, sc in scenarios.items():
            if self.scenarios.get(sid) != sc:  # new, or changed since (a re-imported set): analyse again
                self.scenarios[sid] = sc
                for key in [k for k in self._scenes if k[0] == sid]:
                    del self._scenes[key]

    def scene(self, sid: str, opener: str | None) -> tuple[Any, Any]:
        key = (sid, opener)
        if key not in self._scenes:
            from game.negotiation.metrics import analyse
            from game.negotiation.utility import utilities_for
            from game.negotiation.spec import NegotiationScene
            data = dict(self.scenarios[sid]["scene"])
            if opener is not None:
                data["first"] = opener
            scene = NegotiationScene.model_validate(data)
            self._scenes[key] = (scene, utilities_for(scene), analyse(scene))
        return self._scenes[key]

    def client(self, comp: Competitor, seed: int) -> Any:
        """A new client per match (its usage is that match's alone; its retry jitter seeded by the match)."""
        if comp.name not in self._clients:
            from agents.llm.config import LLMConfig
            self._clients[comp.name] = LLMConfig.from_env(**(comp.llm.settings() if comp.llm else {}))
        from game.play.compose import new_client
        return new_client(self._clients[comp.name], seed)


def play_match(m: Match, ctx: _Context) -> dict[str, Any]:
    start = time.perf_counter()
    if m.kind == "debate":
        from game.tournament.debate import play
        row = play(m, ctx)
    else:
        row = _negotiation(m, ctx) if m.kind == "negotiation" else _episode(m, ctx)
    base = {"id": m.id, "kind": m.kind, "scenario": m.scenario, "rep": m.rep, "seed": m.seed, "group": m.group,
            "opener": m.opener}
    out = {**base, **row}
    out["wall_time"] = round(time.perf_counter() - start, 6)
    return out


def _negotiation(m: Match, ctx: _Context) -> dict[str, Any]:
    from agents.negotiators import from_kind, kind_params
    from game.negotiation.runner import run_negotiation
    scene, utils, analysis = ctx.scene(m.scenario, m.opener)
    negs: dict[str, Any] = {}
    clients: dict[str, Any] = {}
    for party, name in m.seats.items():
        comp = ctx.comps[name]
        if comp.agent == "llm":
            from agents.llm.negotiator import LLMNegotiator
            client = clients[party] = ctx.client(comp, derived_seed(m.seed, m.rep, m.scenario, party))
            negs[party] = LLMNegotiator(client, scene, party, utils[party], fallback=from_kind("linear", utils[party]),
                                        persona=f"You negotiate as party {party}.")
        else:
            params = dict(comp.params)
            if "seed" in kind_params(comp.agent) and "seed" not in params:
                params["seed"] = derived_seed(m.seed, m.rep, m.scenario, party)
            negs[party] = from_kind(comp.agent, utils[party], **params)
    invalid = {p: 0 for p in m.seats}

    def on_move(party: str, move: Any) -> None:
        if move.fallback:
            invalid[party] += 1
    try:
        session, metrics = run_negotiation(scene, negs, utilities=utils, analysis=analysis, on_move=on_move)
    finally:
        for client in clients.values():
            client.close()
    outage = next((c.outage for c in clients.values() if c.outage is not None), None)
    if outage is not None:
        raise outage
    agreed = session.agreement is not None
    seats = []
    for party, name in m.seats.items():
        u, r = float(metrics.utility(party)), float(metrics.reservations[metrics.parties.index(party)])
        adv = (u - r) / (1 - r) if agreed and r < 1 else 0.0
        seats.append({"role": party, "competitor": name, "points": round(adv, 6), "utility": round(u, 6),
                      "reservation": round(r, 6), "advantage": round(adv, 6), "won": None, "score": None,
                      "invalid": invalid[party], "false_leads": None})
    calls = tokens = 0
    cost = 0.0
    for party, client in clients.items():
        used = _usage(client)
        c, t = used.get("llm_calls", 0), used.get("llm_tokens", 0)
        calls, tokens = calls + c, tokens + t
        cost += t / 1000 * ctx.comps[m.seats[party]].llm.usd_per_1k_tokens if ctx.comps[m.seats[party]].llm else 0.0
    return {"status": session.status, "agreement": agreed, "outcome": dict(session.agreement) if agreed else None,
            "rounds": int(session.round), "seats": seats,
            "welfare": round(float(metrics.social_welfare), 6),
            "pareto_distance": round(float(metrics.distance_to_frontier), 6),
            "nash_distance": None if metrics.distance_to_nash is None else round(float(metrics.distance_to_nash), 6),
            "ks_distance": None if metrics.distance_to_ks is None else round(float(metrics.distance_to_ks), 6),
            "llm_calls": calls, "llm_tokens": tokens, "cost": round(cost, 6)}


def _episode(m: Match, ctx: _Context) -> dict[str, Any]:
    from game.play.config import EpisodeConfig, GameConfig, LLMSettings, MemorySettings
    from game.play.episode import play_episode
    comp = ctx.comps[m.seats["player"]]
    sc = ctx.scenarios[m.scenario]
    llm = None
    if comp.llm is not None:
        llm = LLMSettings(**comp.llm.settings())
    game = GameConfig(world=sc["world"], seed=derived_seed(m.seed, m.rep) if m.rep else m.seed, player=comp.agent,
                      memory=MemorySettings(embedder=comp.embedder) if comp.memory else None, llm=llm,
                      llm_npcs=[])  # NPCs stay rule-based: every competitor meets the same world
    ep = EpisodeConfig(game=game, kind=m.kind, scene=sc.get("scene_id"), turns=ctx.cfg.turns)
    res = play_episode(ep)
    share = len(res.quests_done) / res.quests_total if res.quests_total else 0.0
    points = float(res.won) + share
    seat = {"role": "player", "competitor": comp.name, "points": round(points, 6), "utility": None,
            "reservation": None, "advantage": None, "won": bool(res.won), "score": int(res.score),
            "invalid": int(res.invalid.get("player", 0)), "false_leads": res.false_leads}
    cost = res.llm_tokens / 1000 * comp.llm.usd_per_1k_tokens if comp.llm else 0.0
    return {"status": res.status, "agreement": None, "outcome": None, "rounds": int(res.turns), "seats": [seat],
            "welfare": None, "pareto_distance": None, "nash_distance": None, "ks_distance": None,
            "llm_calls": int(res.llm_calls), "llm_tokens": int(res.llm_tokens), "cost": round(cost, 6)}
