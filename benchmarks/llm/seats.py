"""The NPC and council seats, one move a row.

* NPC: ``agents.llm.npc.LLMNPC`` answering the player through the engine's dialogue path
  (``game.engine.dialogue.utterances``: the reply is a recorded decision; a reply that fell back
  to the scripted voice is a penalised invalid move in ``state.invalid``). Requests go round the
  worlds, their NPCs and what each knows of: a greeting (``talk``), then ``ask`` about each topic.
* Debater: ``game.council.llm.LLMDebater`` members of a hidden-profile council
  (``game.council.tasks.hidden_profile_task(seed)``), rounds of two speakers, MEMO masking
  with the hash embedder; a statement it could not give (``debater.invalid``) is unusable.
"""

from __future__ import annotations

from itertools import zip_longest
from typing import Any

from benchmarks.llm.common import WORLDS, Endpoint, Meter

NPC_WORLDS = ("bazaar", "harbor", "council")


def npc_requests(games: dict[str, Any]) -> list[tuple[str, str, str, str | None]]:
    """(world, npc, kind, topic) in a fixed order, alternating between the worlds."""
    from game.engine.predicates import npc_topics

    per_world = []
    for world, game in games.items():
        spec = game.spec
        reqs: list[tuple[str, str, str, str | None]] = []
        for npc in spec.npcs:
            if type(game.engine.voice(npc)).__name__ != "LLMNPC":
                continue
            reqs.append((world, npc, "talk", None))
            reqs += [(world, npc, "ask", t) for t in npc_topics(spec, npc)]
        per_world.append(reqs)
    return [r for group in zip_longest(*per_world) for r in group if r is not None]


def npc_replies(endpoint: Endpoint, mode: str, n: int, seed: int, advance: Any = None) -> list[dict[str, Any]]:
    """``n`` NPC replies in structured ``mode``; a row each."""
    from game.core.types import PLAYER, Request
    from game.engine.dialogue import utterances
    from game.play.session import Game

    client = endpoint.client(mode, seed)
    try:
        games = {w: Game(WORLDS / w, seed=seed, llm=client, llm_npcs="all") for w in NPC_WORLDS}
        meter, rows = Meter(client), []
        for world, npc, kind, topic in npc_requests(games)[:n]:
            eng = games[world].engine
            before = eng.state.invalid.get(npc, 0)
            meter.start()
            said = utterances(eng, npc, Request(kind, PLAYER, eng.state.turn, eng.next_ask(), topic=topic))
            fell_back = eng.state.invalid.get(npc, 0) > before
            meta = {"seat": "NPC", "mode": mode, "world": world, "npc": npc, "kind": kind, "topic": topic}
            rows.append(
                meter.row(fell_back or client.outage is not None, **meta, claims=sum(len(u.claims) for u in said))
            )
            if advance is not None:
                advance()
        return rows
    finally:
        client.close()


def debates(endpoint: Endpoint, mode: str, seeds: list[int], rounds: int, advance: Any = None) -> list[dict[str, Any]]:
    """One hidden-profile debate per seed in structured ``mode``, ``rounds`` rounds of two speakers; a row
    per statement."""
    from game.council.context import MaskingConfig
    from game.council.llm import llm_council
    from game.council.session import CouncilConfig
    from game.council.tasks import hidden_profile_task
    from game.play.debates import run_debate

    rows: list[dict[str, Any]] = []
    for seed in seeds:
        client = endpoint.client(mode, seed)
        try:
            task = hidden_profile_task(seed)
            members = llm_council(task, client)
            meter = Meter(client)
            seen = [0]

            def said(st: Any, view: Any, members=members, meter=meter, seen=seen, seed=seed) -> None:
                invalid = sum(len(d.invalid) for d in members.values())
                meta = {"seat": "debater", "mode": mode, "seed": seed, "member": st.speaker, "round": view.round}
                rows.append(meter.row(invalid > seen[0] or client.outage is not None, **meta))
                seen[0] = invalid
                meter.start()
                if advance is not None:
                    advance()

            meter.start()
            council = CouncilConfig(max_rounds=rounds, min_rounds=rounds, speakers_per_round=2, seed=seed)
            run_debate(task, council, MaskingConfig(), members, on_statement=said, metrics=False)
        finally:
            client.close()
    return rows
