"""Headless episodes: ``play_episode(EpisodeConfig) -> EpisodeResult``, which prints nothing.

One call plays an adventure from the player's seat (any seat: ``autopilot``, ``llm``,
``script:FILE``, ``module:function``), a standalone negotiation between two NPCs, or a council
scene, and returns what happened as data: winner or agreement, score, turns, per-agent utilities,
rewards and invalid moves, LLM calls and tokens, wall time. Config and result are pydantic models:
JSON-serialisable and picklable, so tournaments can ship them across processes and machines.
``parley run`` is a thin printer around it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from game.core.errors import InputError, did_you_mean
from game.core.types import PLAYER
from game.negotiation.runner import run_negotiation
from game.negotiation.utility import utilities_for
from game.play.config import EpisodeConfig
from game.play.reply import Reply
from game.world.spec import CouncilScene, NegotiationScene

if TYPE_CHECKING:
    from game.play.session import Game


class EpisodeResult(BaseModel):
    """What one episode produced."""

    model_config = ConfigDict(extra="forbid")

    world: str
    seed: int
    kind: str
    player: str
    scene: str | None = None
    status: str = Field(
        description="won, lost, timeout or stopped (adventure); agreement, no_agreement or "
        "open (negotiation); passed, failed or debating (council)"
    )
    won: bool = False
    winner: str | None = None
    agreement: dict[str, str] | None = None
    score: int = 0
    turns: int = Field(0, description="moves played (adventure and council), or moves made (negotiation)")
    turn: int = Field(0, description="the game's turn counter at the end (a move that ends the game ends no round)")
    quests_done: list[str] = Field(default_factory=list)
    quests_total: int = 0
    utilities: dict[str, float] = Field(default_factory=dict)
    rewards: dict[str, float] = Field(default_factory=dict)
    invalid: dict[str, int] = Field(default_factory=dict)
    llm_calls: int = 0
    llm_tokens: int = 0
    llm_usage: dict[str, dict[str, float]] = Field(default_factory=dict, description="per agent")
    wall_time: float = 0.0
    state_hash: str | None = None
    learned: int = 0
    false_leads: int | None = Field(
        None,
        description="leads toward a thing's place that no true fact backs, which "
        "the seat walked toward (seats that track leads: autopilot)",
    )
    history: list[dict[str, Any]] = Field(default_factory=list, description="negotiation moves")
    metrics: dict[str, Any] | None = None
    transcript: str | None = None
    notes: list[str] = Field(default_factory=list, description="what the run should tell its user")


def play_episode(
    config: EpisodeConfig,
    *,
    llm: Any = None,
    insights: Any = None,
    on_turn: Callable[[Reply], None] | None = None,
    on_note: Callable[[str], None] | None = None,
) -> EpisodeResult:
    """Play one episode to its end (or ``config.turns``). ``llm``/``insights``: live parts to use
    instead of building them from the config (an ``LLMClient``, an ``InsightBank``); ``on_turn``
    is called with each turn's ``Reply`` (to show progress), ``on_note`` with each note as it is
    made (a script's skipped lines; they are also in ``EpisodeResult.notes``)."""
    start = time.perf_counter()
    if config.kind == "negotiation":
        result = _negotiation(config, llm)
    else:
        result = _adventure(config, llm, insights, on_turn, on_note)
    result.wall_time = round(time.perf_counter() - start, 4)
    return result


# --- adventures (and council scenes inside them) ------------------------------------------
def _adventure(
    config: EpisodeConfig,
    llm: Any,
    insights: Any,
    on_turn: Callable[[Reply], None] | None,
    on_note: Callable[[str], None] | None,
) -> EpisodeResult:
    from game.play.session import Game

    gc = config.game
    if gc.player == "human":
        raise InputError(
            "an episode needs a seat that plays by itself",
            hint="player = autopilot, llm, script:FILE or module:function",
        )
    game = Game(gc.world, config=gc, llm=llm, insights=insights)
    notes: list[str] = []
    try:
        result = _play_adventure(game, config, on_turn, on_note)
    finally:  # a collection on a Chroma server outlives the process: drop it unless asked to keep it
        notes += _server_memory(game, config.keep_memory, on_note)
    result.notes += notes
    return result


def _play_adventure(
    game: Game, config: EpisodeConfig, on_turn: Callable[[Reply], None] | None, on_note: Callable[[str], None] | None
) -> EpisodeResult:
    council = _council_scene(game, config.scene) if config.kind == "council" else None
    limit = config.turns if config.turns is not None else game.spec.max_turns
    stopped, moves = False, 0
    seat = game.seat
    if on_note is not None and _is_script(seat):
        seat.listen(on_note)
    while not game.engine.done and game.engine.state.turn < limit and not _resolved(game, council):
        reply = _script_turn(game, seat) if _is_script(seat) else game.play_turn(seat)
        if reply is None:
            stopped = True
            break
        moves += 1
        if on_turn is not None:
            on_turn(reply)
        if reply.outage is not None:
            raise reply.outage
    result = _adventure_result(game, config, council, stopped)
    result.turns = moves
    result.notes = list(seat.notes) if _is_script(seat) else []
    return result


def _server_memory(game: Game, keep: bool, on_note: Callable[[str], None] | None) -> list[str]:
    """Drop (or, with ``keep``, keep) the game's collection on a Chroma server; the note that says so."""
    options = getattr(game.memory, "store_options", None) or {}
    if "collection" not in options:
        return []
    where = f"Chroma collection {options['collection']} on {options.get('host')}:{options.get('port')}"
    if keep:
        note = f"memory: kept {where}"
    else:
        try:
            game.memory.drop()
            note = f"memory: dropped {where} (--keep-memory keeps it)"
        except Exception as e:  # the server went away: say what is left behind
            note = f"warning: could not drop {where} ({type(e).__name__}: {e}); delete it with a Chroma client"
    if on_note is not None:
        on_note(note)
    return [note]


def _council_scene(game: Game, scene: str | None) -> str:
    """The council scene an episode plays (the seat plays the game until its vote)."""
    councils = [k for k, v in game.spec.scenes.items() if isinstance(v, CouncilScene)]
    if scene is None or scene not in councils:
        raise InputError(
            f"no council scene {scene!r} in {game.spec.id}",
            hint=did_you_mean(scene or "", councils)
            or (f"council scenes: {', '.join(councils)}" if councils else "this world has no council scene"),
        )
    return scene


def _resolved(game: Game, council: str | None) -> bool:
    return council is not None and game.engine.state.scenes.get(council, {}).get("status") in ("passed", "failed")


def _is_script(seat: Any) -> bool:
    from agents.seats import ScriptSeat

    return isinstance(seat, ScriptSeat)


def _script_turn(game: Game, seat: Any) -> Reply | None:
    """A script's next turn (``Game.play_turn`` submits its lines as typed): a line the parser
    cannot use is an input error (file:line); ``quit`` or the end of the script stops (None)."""
    while True:
        reply = game.play_turn(seat)
        if reply.kind == "turn":
            return reply
        n, line = seat.position
        if reply.kind == "meta":
            if reply.meta == "quit":
                if reply.said:  # a quit line (not the end of the script)
                    seat.note(f"{seat.path}:{n}: quit: the run stops here")
                return None
            if reply.meta in ("save", "load"):  # headless runs keep no saves; --out keeps the transcript
                seat.note(
                    f"warning: {seat.path}:{n}: {reply.meta!r} is skipped in a headless run "
                    "(use --out FILE for the transcript)"
                )
            continue
        if reply.kind == "over":
            return None
        brief = repr(line if len(line) <= 80 else line[:80] + "…")
        if reply.kind == "clarify":
            raise InputError(
                f"{seat.path}:{n}: {brief} is ambiguous: {reply.question}", hint="name the object fully in the script"
            )
        raise InputError(f"{seat.path}:{n}: {brief}: {reply.message}")


def _adventure_result(game: Game, config: EpisodeConfig, council: str | None, stopped: bool) -> EpisodeResult:
    st, eng = game.engine.state, game.engine
    if council is not None:
        status = st.scenes.get(council, {}).get("status", "debating")
    elif st.won:
        status = "won"
    elif st.done:
        status = "timeout" if st.turn >= game.spec.max_turns else "lost"
    else:
        status = "stopped"
    learned = game.learn() if st.done else 0
    usage = _usage(game.llm)
    return EpisodeResult(
        world=game.spec.id,
        seed=game.seed,
        kind=config.kind,
        player=config.game.player,
        scene=config.scene,
        status=status,
        won=bool(st.won) or status == "passed",
        winner=PLAYER if st.won or status == "passed" else None,
        score=st.score,
        turns=st.turn,
        turn=st.turn,
        quests_done=list(st.quests_done),
        quests_total=len(game.spec.quests),
        rewards={k: round(v, 6) for k, v in eng.totals.items()},
        invalid=dict(st.invalid),
        utilities=_trade_utilities(game),
        state_hash=eng.state_hash(),
        learned=learned,
        false_leads=_false_leads(game),
        transcript=game.transcript.text() if config.transcript else None,
        **usage,
    )


def _false_leads(game: Game) -> int | None:
    """How many (thing, place) leads the seat followed that no true world fact backs (the truth is
    read here, for scoring only; the seat never sees it)."""
    followed = getattr(game.seat, "followed", None)
    if followed is None:
        return None
    true_pairs = {(f.subject, f.object) for f in game.spec.facts.values() if f.true}
    return sum(1 for thing, place, *_ in followed if (thing, place) not in true_pairs)


def _trade_utilities(game: Game) -> dict[str, float]:
    """The player's utility in each trade it closed (scene id -> utility in [0, 1])."""
    out: dict[str, float] = {}
    for sid, rec in game.engine.state.scenes.items():
        if not isinstance(rec, dict) or "session" not in rec or rec.get("outcome") != "agreement":
            continue
        s = game.engine.scenes.session(sid)
        if PLAYER in s.parties and s.agreement is not None:
            out[sid] = round(float(s.utilities[PLAYER](s.agreement)), 6)
    return out


def _usage(client: Any) -> dict[str, Any]:
    if client is None:
        return {}
    by_agent = client.usage_by_agent()
    return {
        "llm_calls": sum(u.calls for u in by_agent.values()),
        "llm_tokens": sum(u.prompt_tokens + u.completion_tokens for u in by_agent.values()),
        "llm_usage": {
            a: {
                "calls": u.calls,
                "prompt_tokens": u.prompt_tokens,
                "completion_tokens": u.completion_tokens,
                "latency_ms": round(u.latency_ms, 1),
                "retries": u.retries,
                "cache_hits": u.cache_hits,
                "invalid": u.invalid,
            }
            for a, u in sorted(by_agent.items())
        },
    }


# --- standalone negotiations -----------------------------------------------------------------
def _negotiation(config: EpisodeConfig, llm: Any) -> EpisodeResult:
    from game.play.compose import llm_client, load

    gc = config.game
    world = load(gc.world)
    scene = world.spec.scenes.get(config.scene or "")
    if not isinstance(scene, NegotiationScene):
        negs = [k for k, v in world.spec.scenes.items() if isinstance(v, NegotiationScene)]
        raise InputError(
            f"no negotiation scene {config.scene!r} in {world.spec.id}",
            hint=did_you_mean(config.scene or "", negs) or f"negotiation scenes: {', '.join(negs)}",
        )
    kinds: list[str | None] = list(config.negotiators) if config.negotiators else [None] * len(scene.parties)
    if len(kinds) != len(scene.parties):
        raise InputError(
            f"negotiators: {len(scene.parties)} kinds needed (one per party: "
            f"{', '.join(p.id for p in scene.parties)}), got {len(kinds)}"
        )
    client = llm_client(llm, gc)
    utils = utilities_for(scene)
    negotiators = {
        p.id: _negotiator(world, config.scene or "", scene, p.id, kind, utils[p.id], client)
        for p, kind in zip(scene.parties, kinds)
    }
    invalid: dict[str, int] = {}
    first: dict[str, str] = {}

    def fallbacks(party: str, move: Any) -> None:
        if move.fallback:
            invalid[party] = invalid.get(party, 0) + 1
            first.setdefault(party, move.fallback)

    session, metrics = run_negotiation(scene, negotiators, on_move=fallbacks)
    notes = [
        f"{p}: fell back to its rule-based negotiator" + (f" {n} times" if n > 1 else "") + f" ({first[p]})"
        for p, n in invalid.items()
    ]
    if client is not None and client.outage is not None:
        raise client.outage
    m = metrics.to_dict()
    return EpisodeResult(
        world=world.spec.id,
        seed=gc.seed,
        kind="negotiation",
        player=gc.player,
        scene=config.scene,
        status=session.status,
        won=session.agreement is not None,
        agreement=session.agreement,
        turns=len(session.history),
        turn=len(session.history),
        utilities={k: float(v) for k, v in (m.get("utilities") or {}).items()},
        invalid=invalid,
        history=[r.to_dict() for r in session.history],
        metrics=m,
        notes=notes,
        **_usage(client),
    )


def _negotiator(world: Any, sid: str, scene: Any, party: str, kind: str | None, utility: Any, client: Any) -> Any:
    from game.play.wiring import rule_negotiator

    if party == PLAYER:
        raise InputError(
            f"scene {sid!r} has the player as a party",
            hint="play it with `parley play`; a negotiation episode is NPC against NPC",
        )
    params = dict(world.spec.npcs[party].agent.params)
    if kind == "llm":
        if client is None:
            raise InputError(
                "an llm negotiator needs --llm URL", hint="e.g. --llm http://localhost:11434/v1 --model llama3.1"
            )
        from agents.llm.negotiator import LLMNegotiator

        npc = world.spec.npcs[party]
        return LLMNegotiator(
            client,
            scene,
            party,
            utility,
            fallback=rule_negotiator(scene, party, utility, params),
            persona=f"You are {npc.name}. {npc.persona}",
        )
    if kind is not None:
        params["negotiator"] = kind
    return rule_negotiator(scene, party, utility, params)


# --- scripts fed to a game ------------------------------------------------------------------
def script_lines(path: str) -> list[tuple[int, str]]:
    """A script file's commands as (line number, text) (see ``agents.seats.ScriptSeat.from_file``)."""
    from agents.seats import ScriptSeat

    return ScriptSeat.from_file(path).numbered


def run_script(
    game: Game,
    lines: list[tuple[int, str]],
    path: str = "script",
    turns: int | None = None,
    on_turn: Callable[[Reply], None] | None = None,
) -> list[str]:
    """Feed numbered script lines to ``game`` as typed commands until the script, the game or
    ``turns`` ends. A line that does not parse is an input error (file:line). Returns the notes
    (skipped save/load lines, where a ``quit`` stopped the run)."""
    from agents.seats import ScriptSeat

    seat = ScriptSeat(lines, path)
    while not game.engine.done and (turns is None or game.engine.state.turn < turns):
        reply = _script_turn(game, seat)
        if reply is None:
            break
        if on_turn is not None:
            on_turn(reply)
        if reply.outage is not None:
            raise reply.outage
    return seat.notes
