"""The LLM player on an adventure world, with its memory context at a forced limit.

One game is one client, one world and one seed, played ``turns`` turns (or to its end) by
``agents.llm.player.LLMPlayer``; every NPC keeps its scripted voice (``llm_npcs=()``), so each
LLM call is the player's. The context arm says what the player remembers:

* ``none``: memory off (no "You remember" section; the seats part plays this arm);
* ``MEMO``: the game's own memory (``memory.runtime.GameMemory``, MiniLM, ``MemoConfig`` with
  ``budget`` tokens), as ``parley play --llm`` builds it;
* ``full history`` / ``recency window``: what the player perceived, as lines, handed to the
  builders of ``benchmarks.context.baselines`` (the context benchmark's baselines) with the same
  budget, the decision at hand (``Observation.decision``) as the question: the newest lines that
  fit, and the newest whole turns that fit.

Every arm's memory section is counted with ``memory.tokens`` (MiniLM's WordPiece, MEMO's own
counter); a row also records how long the player's whole history was, so the share of turns at
which the limit forced a choice is known.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from benchmarks.llm.common import WORLDS, Endpoint, Meter
from game.core.types import PLAYER

NONE, MEMO, FULL, RECENCY = "none", "MEMO", "full history", "recency window"
ARMS = (MEMO, FULL, RECENCY)
SKIP = ("wait", "invalid")  # what MEMO does not store either
LOOPING = ("look", "examine", "inventory", "help", "wait")  # commands that change nothing in the world


@dataclasses.dataclass
class Shown:
    """A baseline's memory section: what ``agents.text_seat.render`` prints under "You remember"."""

    body: str
    tokens: int

    def text(self) -> str:
        return self.body


class History:
    """An engine listener keeping the lines the player perceived (with their turns), and a context
    provider showing them through a ``benchmarks.context.baselines`` builder (``builder=None``: none)."""

    def __init__(self, budget: int, builder: Any = None):
        from benchmarks.context.baselines import Costs

        self.budget, self.builder, self.costs = budget, builder, Costs()
        self.texts: list[str] = []
        self.turns: list[int] = []
        self.shown_tokens = 0

    def on_event(self, ev: Any) -> None:
        if str(ev.kind) in SKIP or not (ev.public or PLAYER in ev.perceivers):
            return
        self.texts.append(ev.seen_by(PLAYER))
        self.turns.append(int(ev.turn))

    def tokens(self) -> int:
        """The whole history's tokens, as the baselines count it (one ``- line`` each)."""
        return int(self.costs.of(self.texts).sum()) if self.texts else 0

    def __call__(self, agent: str, obs: Any) -> Shown | None:
        if agent != PLAYER or self.builder is None:
            return None
        from benchmarks.context.baselines import Pool

        if not self.texts:
            self.shown_tokens = 0
            return Shown("(nothing yet)", 0)
        pool = Pool(list(self.texts), np.asarray(self.turns), np.zeros((len(self.texts), 1)), self.costs.of(self.texts))
        out = self.builder(pool, obs.decision or "", "", None, None, self.budget, self.costs)
        self.shown_tokens = int(out.tokens)
        return Shown(out.text, int(out.tokens))


class Recording:
    """Wraps the game's own context provider (MEMO) to keep the size of the last context built."""

    def __init__(self, inner: Any):
        self.inner, self.shown_tokens = inner, 0
        hook = getattr(inner, "prepare_round", None) or getattr(getattr(inner, "__self__", None), "prepare_round", None)
        if hook is not None:
            self.prepare_round = hook

    def __call__(self, agent: str, obs: Any) -> Any:
        ctx = self.inner(agent, obs)
        if agent == PLAYER:
            self.shown_tokens = int(ctx.tokens)
        return ctx


def make_game(client: Any, world: str, seed: int, arm: str, budget: int) -> tuple[Any, History, Any]:
    """A game with the player's context arm wired in; (game, history log, context recorder)."""
    from benchmarks.context.baselines import full_history, recency_window
    from game.play.session import Game
    from memory.config import MemoConfig

    memory = {"embedder": "minilm", "config": MemoConfig(budget=budget)} if arm == MEMO else None
    game = Game(WORLDS / world, seed=seed, llm=client, llm_npcs=(), memory=memory)
    builder = {FULL: full_history, RECENCY: recency_window}.get(arm)
    history = History(budget, builder)
    game.engine.listeners.append(history.on_event)
    recorder: Any = None
    if arm == MEMO:
        recorder = game.engine.context_provider = Recording(game.engine.context_provider)
    elif builder is not None:
        recorder = game.engine.context_provider = history
    return game, history, recorder


def unusable(reply: Any) -> bool:
    """No usable command (a penalised wait), or a command the rules refused."""
    refused = any(e.actor == PLAYER and str(e.kind) == "invalid" for e in reply.events)
    return reply.fallback is not None or refused or reply.outage is not None


def play_game(
    endpoint: Endpoint, world: str, seed: int, turns: int, mode: str, arm: str, budget: int, advance: Any = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Play one game; (a row per turn, the game's summary)."""
    from agents.llm.player import LLMPlayer

    client = endpoint.client(mode, seed)
    try:
        game, history, recorder = make_game(client, world, seed, arm, budget)
        seat, meter = LLMPlayer(client), Meter(client)
        rows: list[dict[str, Any]] = []
        rooms = {game.engine.state.where[PLAYER]}
        meta = {"seat": "player", "mode": mode, "arm": arm, "world": world, "seed": seed}
        for _ in range(turns):
            if game.engine.done:
                break
            open_now = {c.lower() for c in game.engine.legal_commands(PLAYER)}
            meter.start()
            reply = game.play_turn(seat)
            rooms.add(game.engine.state.where[PLAYER])
            rows.append(
                meter.row(
                    unusable(reply),
                    **meta,
                    turn=reply.turn,
                    command=reply.command,
                    off_list=reply.command.lower() not in open_now,
                    context_tokens=recorder.shown_tokens if recorder is not None else 0,
                    history_tokens=history.tokens(),
                )
            )
            if advance is not None:
                advance()
        return rows, summarise_game(game, rows, rooms, meta)
    finally:
        client.close()


def summarise_game(game: Any, rows: list[dict[str, Any]], rooms: set[str], meta: dict[str, Any]) -> dict[str, Any]:
    """A game's summary from its rows (a ``command``, ``unusable`` and ``off_list`` each)."""
    st = game.engine.state
    return {
        **meta,
        "turns": len(rows),
        "score": st.score,
        "quests": len(st.quests_done),
        "rooms": len(rooms),
        "unusable": sum(r["unusable"] for r in rows),
        "off_list": sum(r["off_list"] for r in rows),
        "looping": sum(r["command"].split(" ", 1)[0] in LOOPING for r in rows) / max(1, len(rows)),
        "won": bool(st.won),
    }
