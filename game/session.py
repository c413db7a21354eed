"""A game session: world + engine + NPC agents + transcript, with save, load and replay.

This is the wiring point between the engine and the agents; the CLI, the TUI
and tournaments all start games through it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from game.engine import Engine
from game.errors import SaveError
from game.saves import TRANSCRIPT_FILE, read_save, resolve, slugify, saves_dir, write_save
from game.transcript import Transcript, read_records
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
    def save(self, name: str, base: str | Path | None = None) -> Path:
        folder = saves_dir(base) / slugify(name)
        payload = {
            "world": {"id": self.spec.id, "hash": self.world.content_hash, "path": str(self.world.folder)},
            "seed": self.seed, "turn": self.engine.state.turn, "engine": self.engine.get_state(),
            "components": {"agents": {k: a.get_state() for k, a in self.agents.items()}},
            "state_hash": self.engine.state_hash(),
        }
        return write_save(folder, payload, self.transcript.text())

    @classmethod
    def load(cls, ref: str | Path, base: str | Path | None = None, world_path: str | Path | None = None) -> Game:
        folder = resolve(ref, base)
        data = read_save(folder)
        world = load_world(world_path or data["world"]["path"])
        if world.spec.id != data["world"]["id"]:
            raise SaveError(f"{folder}: save is for world {data['world']['id']!r}, not {world.spec.id!r}")
        if world.content_hash != data["world"]["hash"]:
            raise SaveError(f"{folder}: world {world.spec.id!r} changed since this save "
                            f"(hash {world.content_hash} vs {data['world']['hash']})",
                            hint="restore the world files the save was made with")
        game = cls(world, seed=data["seed"])
        try:
            game.engine.set_state(data["engine"])
            for k, st in data["components"].get("agents", {}).items():
                if k in game.agents:
                    game.agents[k].set_state(st)
        except (KeyError, TypeError, ValueError) as e:
            raise SaveError(f"{folder / 'save.json'}: engine state is damaged ({type(e).__name__}: {e})",
                            hint="the file was left as it is") from None
        if game.engine.state_hash() != data["state_hash"]:
            raise SaveError(f"{folder / 'save.json'}: state hash mismatch", hint="the save was edited or damaged")
        tpath = folder / TRANSCRIPT_FILE
        if tpath.is_file():
            game.transcript.records = [line for line in tpath.read_text(encoding="utf-8").splitlines() if line]
        return game


def replay(ref: str | Path, base: str | Path | None = None) -> tuple[bool, str, str]:
    """Re-run a save's transcript from the start; return (match, replayed hash, saved hash).

    Every recorded action (player and NPC) is applied in order, so no agent or
    LLM is needed; a match proves the save is the outcome of its transcript.
    """
    folder = resolve(ref, base)
    data = read_save(folder)
    records = read_records(folder / TRANSCRIPT_FILE)
    world = load_world(data["world"]["path"])
    if world.content_hash != data["world"]["hash"]:
        raise SaveError(f"world {world.spec.id!r} changed since this save", hint="replay needs the original world files")
    eng = Engine(world, seed=data["seed"], transcript=Transcript())
    for n, rec in enumerate(records, 1):
        try:
            if rec["type"] == "action":
                eng.apply(Action.from_dict(rec))
            elif rec["type"] == "round":
                eng.end_round()
        except (KeyError, ValueError) as e:
            raise SaveError(f"{folder / TRANSCRIPT_FILE}:{n}: bad record ({e})") from None
    h = eng.state_hash()
    return h == data["state_hash"], h, data["state_hash"]
