"""A game session: world + engine + NPC agents + transcript, with save, load and replay.

This is the wiring point between the engine and the agents; the CLI, the TUI
and tournaments all start games through it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from game.engine import Engine
from game.errors import SaveError
from game.saves import TRANSCRIPT_FILE, read_save, read_transcript, resolve, saves_dir, slugify, write_save
from game.state import state_hash
from game.transcript import Transcript
from game.types import Action, Event
from game.world.loader import World, load_world


def npc_agents(world: World, seed: int) -> dict[str, Any]:
    """One agent per NPC from its spec; each gets its own RNG stream derived from the seed."""
    from agents.registry import create
    streams = np.random.SeedSequence(seed).spawn(len(world.spec.npcs))
    out = {}
    for (nid, npc), ss in zip(world.spec.npcs.items(), streams):
        if npc.agent.kind == "idle":
            continue  # idle NPCs never act; skipping them keeps turns cheap
        params = {k: v for k, v in npc.agent.params.items() if k != "negotiator"}
        out[nid] = create(npc.agent.kind, nid, rng=np.random.default_rng(ss), world=world, params=params)
    return out


class Game:
    """Everything a running game needs. ``play(text)`` is the line-mode entry point."""

    def __init__(self, world: World | str | Path, seed: int = 0, transcript_path: str | Path | None = None,
                 agents: dict[str, Any] | None = None):
        self.world = world if isinstance(world, World) else load_world(world)
        self.seed = int(seed)
        self.transcript = Transcript(transcript_path)
        self.agents = npc_agents(self.world, self.seed) if agents is None else agents
        self.engine = Engine(self.world, seed=self.seed, actors=self.agents, transcript=self.transcript)
        from game.parser import Parser
        self.parser = Parser()

    @property
    def spec(self) -> Any:
        return self.world.spec

    def intro(self) -> str:
        return f"{self.spec.title}\n\n{self.spec.intro}\n\n" + self.engine.describe("player", self.engine.state.where["player"])

    def act(self, action: Action) -> list[Event]:
        return self.engine.play(action)

    # --- save / load ------------------------------------------------------------
    def components(self) -> dict[str, Any]:
        """Each stateful component's ``get_state()``, saved beside the engine state."""
        return {"agents": {k: a.get_state() for k, a in self.agents.items()}}

    def save(self, name: str, base: str | Path | None = None) -> Path:
        folder = saves_dir(base) / slugify(name)
        engine, components = self.engine.get_state(), self.components()
        payload = {
            "world": {"id": self.spec.id, "hash": self.world.content_hash,
                      "path": str(self.world.folder.resolve())},
            "seed": self.seed, "turn": self.engine.state.turn, "engine": engine,
            "components": components, "state_hash": save_hash(engine, components),
        }
        return write_save(folder, payload, self.transcript.text())

    @classmethod
    def load(cls, ref: str | Path, base: str | Path | None = None, world_path: str | Path | None = None) -> Game:
        folder = resolve(ref, base)
        data = read_save(folder)
        where = folder / "save.json"
        transcript = read_transcript(folder, data)
        world = _world_for(data, where, world_path)
        game = cls(world, seed=data["seed"])
        try:
            game.engine.set_state(data["engine"])
            for k, st in data["components"].get("agents", {}).items():
                if k in game.agents:
                    game.agents[k].set_state(st)
        except Exception as e:  # any damage inside the state is the save's fault, never a crash
            raise SaveError(f"{where}: engine state is damaged ({type(e).__name__}: {e})",
                            hint="the file was left as it is") from None
        if save_hash(game.engine.get_state(), game.components()) != data["state_hash"]:
            raise SaveError(f"{where}: state hash mismatch", hint="the save was edited or damaged; it was left as it is")
        game.transcript.records = [line for line in transcript.splitlines() if line]
        return game


def save_hash(engine: dict[str, Any], components: dict[str, Any]) -> str:
    """One hash over the engine state and every component's state."""
    return state_hash({"engine": engine, "components": components})


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
    data = read_save(folder)
    text = read_transcript(folder, data)
    tpath = folder / TRANSCRIPT_FILE
    world = _world_for(data, folder / "save.json", None)
    if save_hash(data["engine"], data["components"]) != data["state_hash"]:
        raise SaveError(f"{folder / 'save.json'}: state hash mismatch", hint="the save was edited or damaged")
    eng = Engine(world, seed=data["seed"], transcript=Transcript())
    for n, line in enumerate(text.splitlines(), 1):
        try:
            rec = json.loads(line)
            if rec["type"] == "action":
                eng.apply(Action.from_dict(rec))
            elif rec["type"] == "round":
                eng.end_round()
        except Exception as e:  # a damaged record is reported with its line, never a crash
            raise SaveError(f"{tpath}:{n}: bad record ({type(e).__name__}: {e})") from None
    got, want = state_hash(eng.get_state()), state_hash(data["engine"])
    return got == want, got, want
