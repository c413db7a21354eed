"""The composition root: a ``GameConfig`` (plus any live parts a caller brings) becomes the parts
of a running game. This module and the front ends are the only places that pick agents and
memory; the engine layer is handed what it needs (voices, negotiators, context provider,
listeners) and never imports ``agents`` or ``memory``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from game.core import seeds
from game.core.errors import InputError
from game.core.types import PLAYER
from game.engine.loop import Engine
from game.play.config import GameConfig, MemorySettings
from game.play.transcript import Transcript
from game.play.warmup import ContextProvider, MemoryQueue, warm_up
from game.play.wiring import engine_defaults
from game.play.worlds import load_world
from game.world.loader import World


@dataclass
class Parts:
    """Everything ``compose`` builds for one game."""

    world: World
    config: GameConfig
    transcript: Transcript
    llm: Any
    agents: dict[str, Any]
    engine: Engine
    memory: Any
    facts: Any
    insights: Any
    memo_llm: Any = None  # agents.memo_llm.MemoLLM when the config's memo_llm names paths
    warmup: MemoryQueue = field(default_factory=MemoryQueue)  # every call into memory goes through it


def load(world: World | str | Path) -> World:
    return world if isinstance(world, World) else load_world(world)


def llm_client(llm: Any, config: GameConfig) -> Any:
    """An ``agents.llm.LLMClient``: the one given, one for a given ``LLMConfig``, or one for the
    config's ``llm`` settings (None when the game has no LLM)."""
    if llm is None and config.llm is None:
        return None
    from agents.llm.config import LLMConfig

    if llm is None:
        settings = {k: v for k, v in config.llm.model_dump().items() if v is not None}
        llm = LLMConfig.from_env(**settings)
    if isinstance(llm, LLMConfig):
        llm = new_client(llm, config.seed)
    return llm


def new_client(config: Any, seed: int) -> Any:
    """An ``agents.llm.LLMClient`` for an ``LLMConfig``, its retry jitter seeded from the game seed."""
    from agents.llm.client import LLMClient

    return LLMClient(config, rng=seeds.rng(seed, "llm", "client"))


def npc_agents(world: World, seed: int, llm: Any = None, llm_npcs: Any = ()) -> dict[str, Any]:
    """One agent per NPC from its spec (see ``agents.registry.npc_agents``)."""
    from agents.registry import npc_agents as build

    return build(world, seed, llm=llm, llm_npcs=llm_npcs)


def memory_for(spec: Any, memory: Any, config: GameConfig, insights: Any, keys: dict[str, str]) -> Any:
    """The game's ``memory.runtime.GameMemory``: the one given, or one built from settings (a
    ``MemorySettings``, or a dict of ``GameMemory`` options); None when memory is off."""
    if memory is None:
        memory = config.memory
    if memory is None:
        return None
    if isinstance(memory, MemorySettings):
        from memory.config import MemoConfig

        settings = memory
        memory = {
            "embedder": settings.embedder,
            "store": settings.store,
            "config": MemoConfig.model_validate(settings.memo or {}),
        }
        if settings.chroma_host is not None:
            memory["store_options"] = {"host": settings.chroma_host, "port": settings.chroma_port}
    if isinstance(memory, dict) and memory.get("store") == "chroma":
        memory = with_game_collection(memory, spec.id, config.seed)
    if isinstance(memory, dict):
        from memory.runtime import GameMemory

        priors = None
        if insights is not None:
            priors = {agent: insights.context_lines(key) for agent, key in keys.items()}
        memory = GameMemory(spec, priors=priors, **memory)
    return memory


def with_game_collection(memory: dict, world_id: str, seed: int) -> dict:
    """Chroma memory options with the game's own collection (``memory.store.game_collection``:
    world, seed and a new game id), unless they name one already (a loaded game's)."""
    from memory.store_chroma import game_collection

    options = dict(memory.get("store_options") or {})
    if "collection" not in options:
        options["collection"] = game_collection(world_id, seed)
    return {**memory, "store_options": options}


def facts_for(spec: Any, memory: Any, llm: Any, jury: bool, decide: Any = None) -> Any:
    """World-fact memory (``memory.fact_listener.WorldFacts``): the consistency gate and Σ-Mem.
    ``decide``: the engine's ``decide``; the jury's verdicts are then recorded in the transcript
    as decisions (``memory.jury.RecordedJury``), so a replay needs no LLM."""
    from memory.fact_listener import WorldFacts

    bank = memory.bank if memory is not None else None
    judge = None
    if jury:
        if llm is None:
            raise InputError("the LLM jury needs an LLM endpoint", hint="pass --llm URL with --llm-jury")
        from memory.jury import LLMJury, RecordedJury

        judge = LLMJury(llm) if decide is None else RecordedJury(LLMJury(llm), decide)
    extractor = None
    if jury and decide is not None:  # the gate asks the LLM: it also reads what the rules cannot
        from memory.extract_llm import LLMExtractor
        from memory.lexicon import Lexicon

        extractor = LLMExtractor(llm, Lexicon.from_spec(spec), decide)
    facts = WorldFacts(
        spec, embedder=bank.embedder if bank is not None else None, bank=bank, jury=judge, extractor=extractor
    )
    if memory is not None:  # agent memory stores the claims the gate reads from free text too
        memory.claims_of = facts.claims_of
    return facts


def check_memo_llm(paths: list[str], client: Any, memory: Any) -> None:
    """MEMO's LLM paths need an LLM endpoint and memory: an ``InputError`` (exit 2) that says what to
    add, before anything (a Chroma collection) is made."""
    if not paths:
        return
    flag = f"--memo-llm {','.join(paths)}"
    if client is None:
        raise InputError(
            f"{flag} needs an LLM endpoint",
            hint="add --llm URL (e.g. --llm http://localhost:11434/v1 --model llama3.1), or leave --memo-llm out",
        )
    if memory is None:
        raise InputError(f"{flag} needs agent memory", hint="drop --no-memory, or leave --memo-llm out")


def memo_llm_for(memory: Any, client: Any, paths: list[str], clock: Any) -> Any:
    """Hand MEMO's LLM ``paths`` (``GameConfig.memo_llm``) to the game's memory: the optimizer's
    summariser, the reflector's writer, the importance rater's LLM. Returns the
    ``agents.memo_llm.MemoLLM`` (its ``lessons`` distils insights), or None without paths."""
    check_memo_llm(paths, client, memory)
    if not paths:
        return None
    from agents.memo_llm import MemoLLM

    memo = MemoLLM(client, clock)
    if "summarise" in paths:
        memory.optimizer.summariser = memo.summarise
    if "reflect" in paths:
        memory.reflector.llm = memo.reflect
    if "importance" in paths:
        memory.bank.rater.llm = memo.rate
    return memo


def insight_bank(insights: Any, config: GameConfig) -> Any:
    if insights is None and config.insights is not None:
        from memory.insights import InsightBank

        insights = InsightBank(config.insights)
    return insights


def agent_keys(spec: Any, player: str) -> dict[str, str]:
    """Each agent's configuration key in the insight bank: world / entity / agent kind."""
    keys = {"player": f"{spec.id}/player/{player}"}
    for nid, npc in spec.npcs.items():
        keys[nid] = f"{spec.id}/{nid}/{npc.agent.kind}"
    return keys


def witnesses(engine: Engine, see: Any) -> Any:
    """The listener that hands each agent what it sees for itself: ``see(agent, event,
    observation)`` for every perceiver of each event, with what it sees after it
    (``Engine.glance``); agent memory settles each agent's own claims with it. What everyone
    sees at the start counts at once."""
    for who in engine.order:
        see(who, None, engine.glance(who))

    def listen(event: Any) -> None:
        for who in event.perceivers:
            see(who, event, engine.glance(who))

    return listen


def witnessed_by(engine: Engine, who: str, facts: Any, hear: Any = None, see: Any = None) -> Any:
    """The listener of world-fact memory: ``hear`` (default ``facts.on_event``) for the events
    ``who`` perceives only (world-fact memory is the player's journal and the trust it reads, so
    it hears what the player hears, never a claim made out of earshot), then what ``who`` sees
    after each of them (``facts.see`` with ``Engine.glance``). What it sees at the start counts
    at once."""
    hear = facts.on_event if hear is None else hear
    see = facts.see if see is None else see
    see(None, engine.glance(who))

    def listen(event: Any) -> None:
        if who in event.perceivers:
            hear(event)
            see(event, engine.glance(who))

    return listen


def compose(
    world: World | str | Path,
    config: GameConfig,
    transcript_path: str | Path | None = None,
    *,
    agents: dict[str, Any] | None = None,
    memory: Any = None,
    insights: Any = None,
    llm: Any = None,
) -> Parts:
    """Build a game's parts. ``agents``, ``memory`` (a ``GameMemory`` or its options), ``insights``
    (an ``InsightBank``) and ``llm`` (an ``LLMClient`` or ``LLMConfig``) are live parts that
    replace what ``config`` would build; listeners are wired in order: memory, then facts."""
    w = load(world)
    client = llm_client(llm, config)
    check_memo_llm(config.memo_llm, client, memory if memory is not None else config.memory)
    llm_npcs = (config.llm_npcs if config.llm_npcs == "all" else set(config.llm_npcs)) if client is not None else ()
    if agents is None:
        agents = npc_agents(w, config.seed, client, llm_npcs)
    transcript = Transcript(transcript_path)
    engine = Engine(w, seed=config.seed, actors=agents, transcript=transcript, **engine_defaults())
    insights = insight_bank(insights, config)
    mem = memory_for(w.spec, memory, config, insights, agent_keys(w.spec, config.player))
    queue = MemoryQueue()
    warming = warm_up(mem.bank.embedder) if mem is not None else None
    if warming is not None and not config.jury and not config.memo_llm:
        queue.warm_in_background(warming)  # LLM-driven memory logs its calls as they happen: never queued
    if mem is not None:
        engine.listeners += [queue.wrap(mem.on_event), witnesses(engine, queue.wrap(mem.see))]
        engine.context_provider = ContextProvider(mem, queue)
    memo = memo_llm_for(mem, client, config.memo_llm, lambda: engine.state.turn)
    facts = None
    if config.facts:
        facts = facts_for(w.spec, mem, client, config.jury, engine.decide)
        see = queue.wrap(facts.see)
        engine.listeners.append(witnessed_by(engine, PLAYER, facts, queue.wrap(facts.on_event), see))
    return Parts(
        world=w,
        config=config,
        transcript=transcript,
        llm=client,
        agents=agents,
        engine=engine,
        memory=mem,
        facts=facts,
        insights=insights,
        memo_llm=memo,
        warmup=queue,
    )
