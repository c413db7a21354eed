"""A game session: world + engine + NPC agents + transcript, with save, load and replay.

This is the wiring point between the engine and the agents; the CLI, the TUI
and tournaments all start games through it. The engine layer imports neither ``agents`` nor
``memory``: this module builds the NPC agents, memory and gate, and injects them with the
standard voices and negotiators (``game.wiring.engine_defaults()``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from game.engine import Engine, ReplayDivergence
from game.errors import SaveError
from game.saves import (
    TRANSCRIPT_FILE,
    open_save,
    resolve,
    save_folder,
    write_save,
)
from game.state import state_hash
from game.text import shown
from game.transcript import Transcript
from game.types import Action, Event
from game.wiring import engine_defaults
from game.world.loader import World, load_world


def npc_agents(world: World, seed: int, llm: Any = None, llm_npcs: Any = ()) -> dict[str, Any]:
    """One agent per NPC from its spec (see ``agents.registry.npc_agents``)."""
    from agents.registry import npc_agents as build
    return build(world, seed, llm=llm, llm_npcs=llm_npcs)


class Game:
    """Everything a running game needs. ``play(text)`` is the line-mode entry point."""

    def __init__(self, world: World | str | Path, seed: int = 0, transcript_path: str | Path | None = None,
                 agents: dict[str, Any] | None = None, memory: Any = None, insights: Any = None,
                 player_kind: str = "human", llm: Any = None, llm_npcs: Any = "all", facts: bool = True,
                 jury: bool = False):
        """``memory``: None (off), a ``memory.runtime.GameMemory``, or a dict of its options
        (``embedder``, ``store``, ``config``). ``insights``: a ``memory.insights.InsightBank``
        whose lessons from earlier games become priors in each agent's context, and which
        ``learn()`` updates after this game. ``llm``: an ``agents.llm.LLMClient`` (or
        ``LLMConfig``) that drives the NPCs named by ``llm_npcs`` (``"all"`` or ids). ``facts``:
        run NPC claims through the consistency gate and learn trust from verifications; ``jury``:
        the gate also asks the ``llm`` (an LLM jury, 3 samples per batch of claims)."""
        self.world = world if isinstance(world, World) else load_world(world)
        self.seed = int(seed)
        self.insights = insights
        self.player_kind = player_kind
        self.transcript = Transcript(transcript_path)
        if llm is not None and not hasattr(llm, "structured"):
            from agents.llm.client import LLMClient
            llm = LLMClient(llm, rng=np.random.default_rng([self.seed, 7]))
        self.llm = llm
        self.llm_npcs = llm_npcs if llm is not None else ()
        self.saved_llm: dict[str, Any] | None = None
        self.loaded_from: Path | None = None
        self.agents = npc_agents(self.world, self.seed, llm, llm_npcs if llm is not None else ()) \
            if agents is None else agents
        self.engine = Engine(self.world, seed=self.seed, actors=self.agents, transcript=self.transcript,
                             **engine_defaults())
        self.memory = None
        if memory is not None:
            self.attach_memory(memory)
        self.facts = None
        if facts:
            self.attach_facts(jury)
        from game.parser import Parser
        self.parser = Parser()

    def attach_memory(self, memory: Any) -> None:
        """Every event goes into memory; every agent's turn gets a MEMO context."""
        if isinstance(memory, dict):
            from memory.runtime import GameMemory
            priors = None
            if self.insights is not None:
                priors = {agent: self.insights.context_lines(key) for agent, key in self.agent_keys().items()}
            memory = GameMemory(self.spec, priors=priors, **memory)
        self.memory = memory
        self.engine.listeners.append(memory.on_event)
        self.engine.context_provider = memory.context

    def attach_facts(self, jury: bool = False) -> None:
        """World-fact memory: claims through the consistency gate; Σ-Mem trust from verifications."""
        from memory.worldfacts import WorldFacts
        bank = self.memory.bank if self.memory is not None else None
        judge = None
        if jury:
            if self.llm is None:
                from game.errors import InputError
                raise InputError("the LLM jury needs an LLM endpoint", hint="pass --llm URL with --llm-jury")
            from memory.jury import LLMJury
            judge = LLMJury(self.llm)
        self.facts = WorldFacts(self.spec, embedder=bank.embedder if bank is not None else None, bank=bank,
                                jury=judge)
        self.engine.listeners.append(self.facts.on_event)

    def agent_keys(self) -> dict[str, str]:
        """Each agent's configuration key in the insight bank: world / entity / agent kind."""
        keys = {"player": f"{self.spec.id}/player/{self.player_kind}"}
        for nid, npc in self.spec.npcs.items():
            keys[nid] = f"{self.spec.id}/{nid}/{npc.agent.kind}"
        return keys

    def learn(self) -> int:
        """Distil this game's lessons into the insight bank (rule-based, offline); returns how many."""
        if self.insights is None:
            return 0
        from memory.insights import distill_with_sources
        events = [json.loads(r) for r in self.transcript.records]
        n = 0
        for agent, key in self.agent_keys().items():
            for topic, text, weight, source in distill_with_sources(self.spec, self.engine.state, events, key, agent):
                self.insights.add(key, text, topic, weight, source)
                n += 1
            self.insights.decay(key=key)
        self.insights.record_game()
        self.insights.save()
        return n

    def player_inputs(self) -> tuple:
        """The player's observation, plus its memory context when memory is on (for autopilots, the TUI)."""
        return self.engine.turn_inputs("player")

    @property
    def spec(self) -> Any:
        return self.world.spec

    def intro(self) -> str:
        return f"{self.spec.title}\n\n{self.spec.intro}\n\n" + self.engine.describe("player", self.engine.state.where["player"])

    def act(self, action: Action, agent: Any = None) -> list[Event]:
        """Play the player's action (``agent``: the agent that chose it, for invalid-move accounting).

        If the LLM endpoint fails during the turn, the LLM agents finish it with their scripted
        fallbacks (so the game stays whole and replayable), then ``LLMUnavailable`` is raised."""
        events = self.engine.play(action, agent)
        self.raise_outage(events)
        return events

    def raise_outage(self, events: list[Event] | None = None) -> None:
        """Report an LLM outage that happened during the last turn (and clear it); the
        exception carries the turn's ``events`` so a front end can still show them."""
        outage = getattr(self.llm, "outage", None)
        if outage is not None:
            self.llm.outage = None
            err = type(outage)(f"{outage.message} (turn {self.engine.state.turn}; the LLM agents finished "
                               "the turn with their scripted fallbacks)", hint=outage.hint)
            err.events = list(events or ())
            raise err

    def agent_turn(self, agent: Any) -> tuple[Action, list[Event]]:
        """Let an agent in the player's seat choose and play one turn."""
        action = agent.act(*self.player_inputs())
        return action, self.act(action, agent)

    # --- save / load ------------------------------------------------------------
    def components(self) -> dict[str, Any]:
        """Each stateful component's ``get_state()``, saved beside the engine state."""
        comps: dict[str, Any] = {"agents": {k: a.get_state() for k, a in self.agents.items()}}
        if self.memory is not None:
            comps["memory"] = self.memory.get_state()
        if self.facts is not None:
            comps["facts"] = self.facts.get_state()
        return comps

    def save(self, name: str, base: str | Path | None = None) -> Path:
        """Save to ``saves/<slug of name>/`` as one unit (``game.saves.write_save``). A name with
        no letter or digit is an InputError; odd text in the state never makes it fail."""
        folder = save_folder(name, base)
        engine, components = self.engine.get_state(), self.components()
        payload = {
            "world": {"id": self.spec.id, "hash": self.world.content_hash,
                      "path": str(self.world.folder.resolve())},
            "seed": self.seed, "turn": self.engine.state.turn, "engine": engine, "components": components,
            # where the LLM NPCs were served from (never the key), so a resumed game can say so
            "llm": self.llm.config.public_dict() if self.llm is not None else None,
        }
        payload["state_hash"] = save_hash(engine, components, save_header(payload))
        return write_save(folder, payload, self.transcript.text())

    @classmethod
    def load(cls, ref: str | Path, base: str | Path | None = None, world_path: str | Path | None = None,
             llm: Any = None, llm_npcs: Any = "all", jury: bool = False, inside: bool = False) -> Game:
        """Load a save by name, folder or save.json path (``inside``: only a save in the saves
        folder, by name, as typed in the game). Finishes an interrupted save's clean-up."""
        folder = resolve(ref, base, inside=inside)
        data, transcript = open_save(folder)
        where = folder / "save.json"
        check_hash(data, where)
        world = _world_for(data, where, world_path)
        mem_state = data["components"].get("memory")
        memory = None
        if mem_state is not None:
            try:
                from memory.config import MemoConfig
                memory = {"embedder": mem_state["embedder"], "store": mem_state.get("store", "flat"),
                          "config": MemoConfig.model_validate(mem_state["config"])}
            except Exception as e:
                raise SaveError(f"{where}: memory settings are damaged ({type(e).__name__}: {e})") from None
            if memory["store"] not in ("flat", "chroma"):
                memory["store"] = "flat"
            from memory.embedder import KINDS as EMBEDDERS
            if memory["embedder"] not in EMBEDDERS:
                raise SaveError(f"{where}: memory settings are damaged (embedder {shown(repr(memory['embedder']))} "
                                f"is not {' or '.join(EMBEDDERS)})", hint="the file was left as it is")
        game = cls(world, seed=data["seed"], memory=memory, llm=llm, llm_npcs=llm_npcs, jury=jury)
        game.saved_llm = data.get("llm")
        game.loaded_from = folder.resolve()  # the save this game continues (its autosave may replace it)
        try:
            game.engine.set_state(data["engine"])
            for k, st in data["components"].get("agents", {}).items():
                if k in game.agents:
                    game.agents[k].set_state(st)
            if game.memory is not None:
                game.memory.set_state(mem_state)
            if game.facts is not None and "facts" in data["components"]:
                game.facts.set_state(data["components"]["facts"])
        except Exception as e:  # any damage inside the state is the save's fault, never a crash
            raise SaveError(f"{where}: engine state is damaged ({type(e).__name__}: {e})",
                            hint="the file was left as it is") from None
        game.transcript.records = [line for line in transcript.split("\n") if line]  # not splitlines: \x85, \u2028 are text
        if game.facts is not None and "facts" not in data["components"]:
            game.rebuild_facts()  # a save from before world-fact memory: hear the game again
        return game

    def rebuild_facts(self) -> None:
        """Feed the transcript's events through world-fact memory (the claims and verifications
        so far), leaving agent memory as it was."""
        bank, self.facts.bank = self.facts.bank, None
        try:
            for line in self.transcript.records:
                rec = json.loads(line)
                if rec.get("type") == "event":
                    self.facts.on_event(Event.from_dict(rec))
        finally:
            self.facts.bank = bank


def save_header(data: dict[str, Any]) -> dict[str, Any]:
    """The fields of a save, besides the states, that change play: the seed (it seeds the NPC
    agents and the LLM client), the turn, and the world (id and content hash). ``world.path``
    is left out on purpose: it only says where to look, and the world found is checked
    against the hash; ``llm`` only records where the NPCs spoke from; the transcript is bound
    by its own digest and checked by replay."""
    return {"seed": data["seed"], "turn": data["turn"],
            "world": {"id": data["world"]["id"], "hash": data["world"]["hash"]}}


def save_hash(engine: dict[str, Any], components: dict[str, Any], header: dict[str, Any] | None = None) -> str:
    """One hash over the engine state, every component's state and (``header``, see
    ``save_header``) the seed, turn and world. Without a header: the hash saves had before
    the seed was covered, still accepted when loading them."""
    body: dict[str, Any] = {"engine": engine, "components": components}
    if header is not None:
        body["save"] = header
    return state_hash(body)


def check_hash(data: dict[str, Any], where: Path) -> None:
    """Refuse a save whose seed, turn, world, engine or component state was edited."""
    hint = "the save was edited or damaged; it was left as it is"
    engine = data["engine"]
    if "seed" in engine and engine["seed"] != data["seed"]:
        raise SaveError(f"{where}: seed {data['seed']} does not match the engine's seed {engine['seed']!r}",
                        hint=hint)
    if engine["state"].get("turn") != data["turn"]:
        raise SaveError(f"{where}: turn {data['turn']} does not match the engine's turn "
                        f"{engine['state'].get('turn')!r}", hint=hint)
    want = data["state_hash"]
    if want == save_hash(engine, data["components"], save_header(data)):
        return
    if want == save_hash(engine, data["components"]):
        return  # a save made before the hash covered the seed, turn and world
    raise SaveError(f"{where}: state hash mismatch (the seed, turn, world or game state is not what was saved)",
                    hint=hint)


def _world_for(data: dict[str, Any], where: Path, world_path: str | Path | None) -> World:
    """The save's world: an explicit path, else the recorded path, else the world id under ./worlds."""
    from game.errors import InputError
    wanted = data["world"]
    candidates = [world_path] if world_path is not None else [wanted["path"], wanted["id"]]
    world, last = None, None
    for cand in candidates:
        try:
            world = load_world(cand)
            break
        except InputError as e:
            last = e
    if world is None:
        raise SaveError(f"{where}: cannot find world {wanted['id']!r} (was at {wanted['path']})",
                        hint="pass the world folder: parley play WORLD --load SAVE") from last
    if world.spec.id != wanted["id"]:
        raise SaveError(f"{where}: save is for world {wanted['id']!r}, not {world.spec.id!r}")
    if world.content_hash != wanted["hash"]:
        raise SaveError(f"{where}: world {world.spec.id!r} changed since this save "
                        f"(hash {world.content_hash} vs {wanted['hash']})",
                        hint="restore the world files the save was made with")
    return world


def replay(ref: str | Path, base: str | Path | None = None) -> tuple[bool, str, str]:
    """Re-run a save's transcript from the start; return (match, replayed hash, saved hash).

    Every recorded action (player and NPC) is applied in order, so no agent or
    LLM is needed; a match proves the saved engine state is the outcome of its
    transcript.
    """
    folder = resolve(ref, base)
    data, text = open_save(folder)
    tpath = folder / TRANSCRIPT_FILE
    check_hash(data, folder / "save.json")
    world = _world_for(data, folder / "save.json", None)
    eng = Engine(world, seed=data["seed"], transcript=Transcript(), **engine_defaults())
    from collections import deque
    decisions: deque[dict[str, Any]] = deque()
    lines = text.split("\n")  # records end with "\n" only (\x85 or \u2028 inside text is no line break)
    if lines[-1] == "":
        lines.pop()
    for n, line in enumerate(lines, 1):
        try:
            rec = json.loads(line)
            if rec.get("type") == "decision":
                decisions.append(rec)
        except Exception as e:
            raise SaveError(f"{tpath}:{n}: bad record ({type(e).__name__}: {e})") from None
    eng.replay_decisions = decisions
    for n, line in enumerate(lines, 1):
        try:
            rec = json.loads(line)
            if rec["type"] == "action":
                eng.apply(Action.from_dict(rec))
            elif rec["type"] == "penalty":
                eng.penalise(rec["who"], rec["reason"])
            elif rec["type"] == "round":
                eng.end_round()
        except ReplayDivergence as e:  # the recorded story no longer fits: the states differ
            return False, f"(diverged at {TRANSCRIPT_FILE}:{n}: {e})", state_hash(data["engine"])
        except Exception as e:  # a damaged record is reported with its line, never a crash
            raise SaveError(f"{tpath}:{n}: bad record ({type(e).__name__}: {e})") from None
    if eng.replay_decisions:
        left = eng.replay_decisions[0]
        return False, f"(diverged: recorded {left.get('kind')} by {left.get('who')!r} was never asked for)", \
            state_hash(data["engine"])
    got, want = state_hash(eng.get_state()), state_hash(data["engine"])
    return got == want, got, want
