"""Saving, loading and replaying a ``game.session.Game``: what goes into a save, the checks a
save must pass to load (hash, seed, turn, world), and the replay that proves a save's state is
the outcome of its transcript. The file format and atomic writing live in ``game.saves``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from game.engine import Engine, ReplayDivergence
from game.errors import SaveError
from game.saves import TRANSCRIPT_FILE, open_save, resolve, save_folder, write_save
from game.state import state_hash
from game.text import shown
from game.transcript import Transcript
from game.types import Action
from game.wiring import engine_defaults
from game.world.loader import World, load_world


def save_game(game: Any, name: str, base: str | Path | None = None) -> Path:
    """Save to ``saves/<slug of name>/`` as one unit (``game.saves.write_save``). A name with
    no letter or digit is an InputError; odd text in the state never makes it fail."""
    folder = save_folder(name, base)
    engine, components = game.engine.get_state(), game.components()
    payload = {
        "world": {"id": game.spec.id, "hash": game.world.content_hash,
                  "path": str(game.world.folder.resolve())},
        "seed": game.seed, "turn": game.engine.state.turn, "engine": engine, "components": components,
        # where the LLM NPCs were served from (never the key), so a resumed game can say so
        "llm": game.llm.config.public_dict() if game.llm is not None else None,
    }
    payload["state_hash"] = save_hash(engine, components, save_header(payload))
    return write_save(folder, payload, game.transcript.text())


def memory_settings(data: dict[str, Any], where: Path) -> dict[str, Any] | None:
    """The memory options a save was made with (None: memory was off)."""
    mem_state = data["components"].get("memory")
    if mem_state is None:
        return None
    try:
        from memory.config import MemoConfig
        memory = {"embedder": mem_state["embedder"], "store": mem_state.get("store", "flat"),
                  "config": MemoConfig.model_validate(mem_state["config"])}
    except Exception as e:
        raise SaveError(f"{where}: memory settings are damaged ({type(e).__name__}: {e})") from None
    if memory["store"] not in ("flat", "chroma"):
        memory["store"] = "flat"
    server = mem_state.get("store_options")
    if memory["store"] == "chroma" and server:  # a Chroma server: reopen the game's own collection
        if not (isinstance(server, dict) and isinstance(server.get("host"), str)
                and isinstance(server.get("port"), int) and isinstance(server.get("collection"), str)):
            raise SaveError(f"{where}: memory settings are damaged (store_options {shown(repr(server))})",
                            hint="the file was left as it is")
        memory["store_options"] = {k: server[k] for k in ("host", "port", "collection")}
    from memory.embedder import KINDS as EMBEDDERS
    if memory["embedder"] not in EMBEDDERS:
        raise SaveError(f"{where}: memory settings are damaged (embedder {shown(repr(memory['embedder']))} "
                        f"is not {' or '.join(EMBEDDERS)})", hint="the file was left as it is")
    return memory


def load_game(cls: type, ref: str | Path, base: str | Path | None = None, world_path: str | Path | None = None,
              llm: Any = None, llm_npcs: Any = "all", jury: bool = False, inside: bool = False,
              memo_llm: Any = ()) -> Any:
    """Load a save into a new ``cls`` game (see ``Game.load``)."""
    folder = resolve(ref, base, inside=inside)
    data, transcript = open_save(folder)
    where = folder / "save.json"
    check_hash(data, where)
    world = world_for(data, where, world_path)
    game = cls(world, seed=data["seed"], memory=memory_settings(data, where), llm=llm,
               llm_npcs=llm_npcs if llm_npcs == "all" else sorted(llm_npcs), jury=jury, memo_llm=memo_llm)
    game.saved_llm = data.get("llm")
    game.loaded_from = folder.resolve()  # the save this game continues (its autosave may replace it)
    try:
        game.engine.set_state(data["engine"])
        for k, st in data["components"].get("agents", {}).items():
            if k in game.agents:
                game.agents[k].set_state(st)
        if game.memory is not None:
            game.memory.set_state(data["components"]["memory"])
        if game.facts is not None and "facts" in data["components"]:
            game.facts.set_state(data["components"]["facts"])
    except Exception as e:  # any damage inside the state is the save's fault, never a crash
        raise SaveError(f"{where}: engine state is damaged ({type(e).__name__}: {e})",
                        hint="the file was left as it is") from None
    game.transcript.records = [line for line in transcript.split("\n") if line]  # not splitlines: \x85, \u2028 are text
    if game.facts is not None and "facts" not in data["components"]:
        game.rebuild_facts()  # a save from before world-fact memory: hear the game again
    return game


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


def world_for(data: dict[str, Any], where: Path, world_path: str | Path | None) -> World:
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
    world = world_for(data, folder / "save.json", None)
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
