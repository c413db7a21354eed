"""Saving, loading and replaying a ``game.play.session.Game``: what goes into a save, the checks a
save must pass to load (hash, seed, turn, world), and the replay that proves a save's state is
the outcome of its transcript. The file format and atomic writing live in ``game.play.save_files``."""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from game.core.errors import InputError, SaveError
from game.core.text import shown
from game.core.types import PLAYER, Action
from game.engine.loop import Engine, ReplayDivergence
from game.engine.state import canonical_json, state_hash
from game.play.save_files import TRANSCRIPT_FILE, open_save, resolve, save_folder, write_save
from game.play.transcript import Transcript
from game.play.wiring import engine_defaults
from game.play.worlds import load_world
from game.world.loader import World

if TYPE_CHECKING:
    from game.play.session import Game


def save_game(game: Game, name: str, base: str | Path | None = None) -> Path:
    """Save to ``saves/<slug of name>/`` as one unit (``game.play.save_files.write_save``). A name with
    no letter or digit is an InputError; odd text in the state never makes it fail."""
    folder = save_folder(name, base)
    engine, components = game.engine.get_state(), game.components()
    payload = {
        "world": {"id": game.spec.id, "hash": game.world.content_hash, "path": str(game.world.folder.resolve())},
        "seed": game.seed,
        "turn": game.engine.state.turn,
        "engine": engine,
        "components": components,
        # where the LLM NPCs were served from (never the key), so a resumed game can say so
        "llm": game.llm.config.public_dict() if game.llm is not None else None,
    }
    rebuilt = getattr(game, "facts_rebuilt", None)
    if rebuilt is not None:  # world-fact memory was rebuilt from the transcript at that turn
        payload["facts_rebuilt"] = rebuilt
    payload["state_hash"] = save_hash(engine, components, save_header(payload))
    return write_save(folder, payload, game.transcript.text())


def memory_settings(data: dict[str, Any], where: Path) -> dict[str, Any] | None:
    """The memory options a save was made with (None: memory was off)."""
    mem_state = data["components"].get("memory")
    if mem_state is None:
        return None
    try:
        from memory.config import MemoConfig

        memory = {
            "embedder": mem_state["embedder"],
            "store": mem_state.get("store", "flat"),
            "config": MemoConfig.model_validate(mem_state["config"]),
        }
    except Exception as e:
        raise SaveError(f"{where}: memory settings are damaged ({type(e).__name__}: {e})") from None
    if memory["store"] not in ("flat", "chroma"):
        memory["store"] = "flat"
    server = mem_state.get("store_options")
    if memory["store"] == "chroma" and server:  # a Chroma server: reopen the game's own collection
        if not (
            isinstance(server, dict)
            and isinstance(server.get("host"), str)
            and isinstance(server.get("port"), int)
            and isinstance(server.get("collection"), str)
        ):
            raise SaveError(
                f"{where}: memory settings are damaged (store_options {shown(repr(server))})",
                hint="the file was left as it is",
            )
        memory["store_options"] = {k: server[k] for k in ("host", "port", "collection")}
    from memory.embedder import KINDS as EMBEDDERS

    if memory["embedder"] not in EMBEDDERS:
        raise SaveError(
            f"{where}: memory settings are damaged (embedder {shown(repr(memory['embedder']))} "
            f"is not {' or '.join(EMBEDDERS)})",
            hint="the file was left as it is",
        )
    return memory


def load_game(
    cls: type,
    ref: str | Path,
    base: str | Path | None = None,
    world_path: str | Path | None = None,
    llm: Any = None,
    llm_npcs: Any = "all",
    jury: bool = False,
    inside: bool = False,
    memo_llm: Any = (),
) -> Any:
    """Load a save into a new ``cls`` game (see ``Game.load``)."""
    folder = resolve(ref, base, inside=inside)
    where = folder / "save.json"
    built: list[Any] = []

    def build(data: dict[str, Any], world: World) -> None:
        """The game, its state restored: part of the checks, so a state the game refuses leaves
        the save folder as it was, like any other check."""
        game = cls(
            world,
            seed=data["seed"],
            memory=memory_settings(data, where),
            llm=llm,
            llm_npcs=llm_npcs if llm_npcs == "all" else sorted(llm_npcs),
            jury=jury,
            memo_llm=memo_llm,
        )
        try:
            game.restore(data["engine"], data["components"])
        except Exception as e:  # any damage inside the state is the save's fault, never a crash
            part = getattr(e, "save_part", "engine")
            raise SaveError(
                f"{where}: {part}: the game cannot take this state ({type(e).__name__}: {e})", hint=HINT
            ) from None
        built.append(game)

    data, transcript, world = checked_save(folder, world_path, build)
    game = built[0]
    game.saved_llm = data.get("llm")
    game.facts_rebuilt = data.get("facts_rebuilt")
    game.loaded_from = folder.resolve()  # the save this game continues (its autosave may replace it)
    game.transcript.records = [line for line in transcript.split("\n") if line]  # not splitlines: \x85, \u2028 are text
    if game.facts is not None and "facts" not in data["components"]:
        # a save from before world-fact memory: hear the game again, without a jury (a replay
        # finds no recorded verdicts for those claims either)
        game.warmup.settle()
        gate = game.facts.gate
        jury, reader, gate.jury, gate._extractor = gate.jury, gate._extractor, None, None  # rules only
        try:
            game.rebuild_facts()
        finally:
            gate.jury, gate._extractor = jury, reader
        game.facts_rebuilt = data["turn"]
    return game


def checked_save(
    folder: Path, world_path: str | Path | None = None, then: Any = None
) -> tuple[dict[str, Any], str, World]:
    """Open a save as every command does: (data, transcript, world). All of it is checked before
    anything runs on it, and before an interrupted write is finished on disk: the schema of the
    whole file (``game.play.save_schema``), the transcript's digest, the state hash, the world
    (found and unchanged) and the ids that must name something of it (``game.play.save_world``).
    ``then(data, world)``, when given, is one more check (a game built on the state). A save that
    fails is a ``SaveError`` naming the file and the field, and is left as it is."""
    from game.play.save_world import check_save_world

    where = Path(folder) / "save.json"
    found: list[World] = []

    def check(data: dict[str, Any], text: str) -> None:
        check_hash(data, where)
        found.append(world_for(data, where, world_path))
        check_save_world(data, found[0], where)
        check_transcript_start(data, text, where.with_name(TRANSCRIPT_FILE))
        if then is not None:
            then(data, found[0])

    data, text = open_save(Path(folder), check)
    return data, text, found[0]


HINT = "the save is damaged or was edited; it was left as it is"
TRANSCRIPT_HINT = "the transcript belongs to another game or was edited; it was left as it is"


def check_transcript_start(data: dict[str, Any], text: str, tpath: Path) -> None:
    """The transcript's first record starts this save's game: its seed, world id and world hash
    are the save's (a transcript of another game, resealed, would replay that game instead)."""
    first = text.split("\n", 1)[0]
    try:
        start = json.loads(first) if first.strip() else None
    except ValueError:
        start = None
    if not isinstance(start, dict) or start.get("type") != "start":
        raise SaveError(f"{tpath}:1: the first record is not the game's start", hint=TRANSCRIPT_HINT)
    want = {"seed": data["seed"], "world": data["world"]["id"], "hash": data["world"]["hash"]}
    for key, value in want.items():
        if key in start and start[key] != value:
            raise SaveError(
                f"{tpath}:1: {key}: {shown(repr(start[key]))} is not the save's {shown(repr(value))}",
                hint=TRANSCRIPT_HINT,
            )


def save_header(data: dict[str, Any]) -> dict[str, Any]:
    """The fields of a save, besides the states, that change play: the seed (it seeds the NPC
    agents and the LLM client), the turn, and the world (id and content hash). ``world.path``
    is left out on purpose: it only says where to look, and the world found is checked
    against the hash; ``llm`` only records where the NPCs spoke from; the transcript is bound
    by its own digest and checked by replay."""
    header = {
        "seed": data["seed"],
        "turn": data["turn"],
        "world": {"id": data["world"]["id"], "hash": data["world"]["hash"]},
    }
    if "facts_rebuilt" in data:  # it decides what a replay compares
        header["facts_rebuilt"] = data["facts_rebuilt"]
    return header


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
        raise SaveError(f"{where}: seed {data['seed']} does not match the engine's seed {engine['seed']!r}", hint=hint)
    if engine["state"].get("turn") != data["turn"]:
        raise SaveError(
            f"{where}: turn {data['turn']} does not match the engine's turn {engine['state'].get('turn')!r}", hint=hint
        )
    want = data["state_hash"]
    if want == save_hash(engine, data["components"], save_header(data)):
        return
    if want == save_hash(engine, data["components"]):
        return  # a save made before the hash covered the seed, turn and world
    raise SaveError(
        f"{where}: state hash mismatch (the seed, turn, world or game state is not what was saved)", hint=hint
    )


def world_for(data: dict[str, Any], where: Path, world_path: str | Path | None) -> World:
    """The save's world: an explicit path, else the recorded path, else the world id under ./worlds."""
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
        raise SaveError(
            f"{where}: cannot find world {wanted['id']!r} (was at {wanted['path']})",
            hint="pass the world folder: parley play WORLD --load SAVE",
        ) from last
    if world.spec.id != wanted["id"]:
        raise SaveError(f"{where}: save is for world {wanted['id']!r}, not {world.spec.id!r}")
    if world.content_hash != wanted["hash"]:
        raise SaveError(
            f"{where}: world {world.spec.id!r} changed since this save (hash {world.content_hash} vs {wanted['hash']})",
            hint="restore the world files the save was made with",
        )
    return world


# --- replay ---------------------------------------------------------------------------------

PARTS = ("engine", "agents", "gate", "sigma", "claims", "memory")  # what a replay compares, in this order


@dataclass
class ReplayReport:
    """What a replay found. ``parts``: per part checked, (replayed digest, saved digest): the
    engine state, the NPC agents' own state, the consistency gate, Σ-Mem, the rest of world-fact
    memory and agent memory. ``diverged_at``: the part and reason when the recorded story stopped fitting before
    the end (the other parts were then not compared). ``notes``: what could not be checked."""

    parts: dict[str, tuple[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    diverged_at: tuple[str, str] | None = None

    @property
    def diverged(self) -> list[str]:
        """The parts that differ from the save (the part a cut-short replay blames first)."""
        bad = [self.diverged_at[0]] if self.diverged_at else []
        return bad + [p for p, (got, want) in self.parts.items() if got != want and p not in bad]

    @property
    def ok(self) -> bool:
        return not self.diverged

    def engine(self) -> tuple[str, str]:
        """(replayed, saved) engine hash; the replayed one is the reason when cut short."""
        got, want = self.parts["engine"]
        return (f"({self.diverged_at[1]})" if self.diverged_at else got), want


def replay(ref: str | Path, base: str | Path | None = None) -> tuple[bool, str, str]:
    """Re-run a save's transcript from the start; return (match, replayed engine hash, saved
    engine hash). ``match`` covers every part ``replay_report`` checks, not the engine alone."""
    report = replay_report(ref, base)
    return (report.ok, *report.engine())


def replay_report(ref: str | Path, base: str | Path | None = None) -> ReplayReport:
    """Re-run a save's transcript from the start and compare every part of the state with the save.

    Every recorded action (player and NPC) is applied in order and every recorded decision (an
    agent's reply or move, a jury verdict) is read back, so no agent or LLM is needed. World-fact
    memory (gate and Σ-Mem) and agent memory are rebuilt as the game wired them and hear the
    replayed events; a match proves the saved state is the outcome of its transcript.
    """
    from game.play.replay_agents import AgentReplay  # builds agents: loaded when a replay runs

    folder = resolve(ref, base)
    data, text, world = checked_save(folder)
    where, tpath = folder / "save.json", folder / TRANSCRIPT_FILE
    records = transcript_records(text, tpath)
    eng = Engine(world, seed=data["seed"], transcript=Transcript(), **engine_defaults())
    eng.replay_decisions = deque(rec for _, rec in records if rec.get("type") == "decision")
    report = ReplayReport()
    mem, facts = replay_listeners(eng, data, where, report.notes)
    agents = AgentReplay(eng, world, data["seed"])
    want = state_hash(data["engine"])
    for n, rec in records:
        try:
            agents.before(rec)
            if rec["type"] == "action":
                eng.apply(Action.from_dict(rec))
            elif rec["type"] == "penalty":
                eng.penalise(rec["who"], rec["reason"])
            elif rec["type"] == "round":
                agents.end_round()
                eng.end_round()
        except ReplayDivergence as e:  # the recorded story no longer fits: the states differ
            report.parts["engine"] = ("", want)
            report.diverged_at = (blamed(str(e)), f"diverged at {TRANSCRIPT_FILE}:{n}: {e}")
            return report
        except Exception as e:  # a damaged record is reported with its line, never a crash
            raise SaveError(f"{tpath}:{n}: bad record ({type(e).__name__}: {e})") from None
    report.parts["engine"] = (state_hash(eng.get_state()), want)
    odd = first_unwritten(records, eng.transcript.records)
    if odd is not None:  # a record the game would not have written (an event edited, a line added)
        report.diverged_at = ("engine", f"diverged at {TRANSCRIPT_FILE}:{odd}: the replay does not write this record")
        return report
    agents.finish()
    report.parts["agents"] = agents_digests(agents.states(), data["components"].get("agents", {}))
    report.notes += agents.notes
    if eng.replay_decisions:
        left = eng.replay_decisions[0]
        report.diverged_at = (
            blamed(f"{left.get('kind')} by {left.get('who')!r}"),
            f"diverged: recorded {left.get('kind')} by {left.get('who')!r} was never asked for",
        )
        return report
    comps = data["components"]
    if facts is not None:
        rebuilt = data.get("facts_rebuilt")
        if rebuilt is not None:
            report.notes.append(
                f"world-fact memory was rebuilt from the transcript at turn {rebuilt} (an older save): what "
                "the player witnessed and the evidence settled before then are not in it, so not compared"
            )
        report.parts.update(facts_digests(facts.get_state(), comps["facts"], rebuilt is None))
    if mem is not None:
        report.parts["memory"] = (memory_digest(mem), saved_memory_digest(comps["memory"], mem))
    return report


def agents_digests(got: dict[str, Any], saved: dict[str, Any]) -> tuple[str, str]:
    """(replayed, saved) digests of the NPC agents' states, over the agents the save holds that a
    replay can rebuild (a game played with no NPC agents saves none)."""
    ids = sorted(k for k in saved if k in got)
    return state_hash({k: got[k] for k in ids}), state_hash({k: saved[k] for k in ids})


def transcript_records(text: str, tpath: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, record) for each line of a transcript; a damaged line is a SaveError."""
    lines = text.split("\n")  # records end with "\n" only (\x85 or \u2028 inside text is no line break)
    if lines[-1] == "":
        lines.pop()
    out = []
    for n, line in enumerate(lines, 1):
        try:
            rec = json.loads(line)
            rec["type"]
        except Exception as e:
            raise SaveError(f"{tpath}:{n}: bad record ({type(e).__name__}: {e})") from None
        out.append((n, rec))
    return out


def first_unwritten(records: list[tuple[int, dict[str, Any]]], replayed: list[str]) -> int | None:
    """The line of the first saved record that the replay, writing its own transcript, does not
    write at that place; None when all agree. Decisions and penalties are read back and applied,
    not written again (a forged one changes the state, which the state hash then shows)."""
    saved = [(n, rec) for n, rec in records if rec.get("type") not in ("decision", "penalty")]
    for (n, rec), line in zip(saved, replayed, strict=False):
        if canonical_json(rec) != line:
            return n
    if len(saved) != len(replayed):
        return saved[len(replayed)][0] if len(saved) > len(replayed) else (records[-1][0] if records else 1)
    return None


def blamed(what: str) -> str:
    """The part a cut-short replay blames: the gate when a jury verdict was out of step."""
    from memory.jury import JURY_KIND, JURY_WHO

    return "gate" if f"{JURY_KIND} by {JURY_WHO!r}" in what or f"{JURY_KIND} for {JURY_WHO!r}" in what else "engine"


def replay_listeners(eng: Engine, data: dict[str, Any], where: Path, notes: list[str]) -> tuple[Any, Any]:
    """Agent memory and world-fact memory for a replay, wired to ``eng`` as ``game.play.compose``
    wires them (memory first, then facts, which hear what the player hears); (memory, facts),
    None for what the save does not hold. Memory is rebuilt in a flat in-memory store, so a
    replay never touches a Chroma server."""
    comps, spec = data["components"], eng.spec
    mem = None
    settings = memory_settings(data, where)
    if settings is not None:
        from game.play.compose import witnesses
        from memory.runtime import GameMemory

        mem = GameMemory(spec, embedder=settings["embedder"], store="flat", config=settings["config"])
        mem.priors = {k: list(v) for k, v in comps["memory"].get("priors", {}).items()}
        eng.listeners += [mem.on_event, witnesses(eng, mem.see)]
    if "facts" not in comps:
        notes.append(
            "the save holds no world-fact state (world facts off, or an older save): gate, Σ-Mem and claims not checked"
        )
        return mem, None
    return mem, replay_world_facts(eng, mem)


def replay_world_facts(eng: Engine, mem: Any = None) -> Any:
    """World-fact memory on a replaying engine: it asks for the gate's recorded decisions (jury
    verdicts, extractor answers) where the game made them."""
    from game.play.compose import facts_for

    facts = facts_for(eng.spec, mem, None, False)
    facts.gate._extractor = replay_extractor(eng, facts.lexicon)
    eng.listeners.append(replay_facts_listener(eng, facts))
    return facts


def recorded_next(eng: Engine, who: str, kind: str) -> bool:
    """Does the transcript have a ``kind`` decision by ``who`` next, among ``who``'s records next
    for this turn? (A replay's look-ahead: a step recorded in play must be asked for again.)"""
    for rec in eng.replay_decisions or ():
        if rec.get("who") != who or rec.get("turn") != eng.state.turn:
            return False
        if rec.get("kind") == kind:
            return True
    return False


def replay_extractor(eng: Engine, lexicon: Any) -> Any:
    """The claim extractor of a replay: the rules, and the LLM's recorded answers where the
    transcript has one next (a game played with ``--llm-jury`` asked the LLM what rules missed)."""
    from memory.extract_llm import EXTRACT_KIND, EXTRACT_WHO, LLMExtractor

    return LLMExtractor(None, lexicon, eng.decide, when=lambda: recorded_next(eng, EXTRACT_WHO, EXTRACT_KIND))


def replay_facts_listener(eng: Engine, facts: Any) -> Any:
    """World-fact memory's listener as ``game.play.compose.witnessed_by`` wires it, with the gate's
    jury present exactly when the transcript recorded a verdict next (among the gate's records
    next, for this turn): a game may have been played with the jury in one session and without it
    in another."""
    from game.play.compose import witnessed_by
    from memory.jury import JURY_KIND, JURY_WHO, RecordedJury

    jury = RecordedJury(None, eng.decide)

    def hear(event: Any) -> None:
        facts.gate.jury = jury if recorded_next(eng, JURY_WHO, JURY_KIND) else None
        facts.on_event(event)

    return witnessed_by(eng, PLAYER, facts, hear)


CLAIM_KEYS = ("claims", "judged", "records", "witness", "settled")  # the "claims" part of world-fact memory


def facts_digests(got: dict[str, Any], want: dict[str, Any], witnessed: bool = True) -> dict[str, tuple[str, str]]:
    """(replayed, saved) digests of the gate, Σ-Mem and the rest of world-fact memory (the claim
    log, the claims judged, the facts mirrored into agent memory, what the player witnessed and
    the evidence settled): all of world-fact memory, which the transcript determines. Without
    ``witnessed`` (memory rebuilt from an older save's transcript, which holds no sightings),
    what the player witnessed and the evidence settled are left out."""
    keys = CLAIM_KEYS if witnessed else CLAIM_KEYS[:3]

    def claims(st: dict[str, Any]) -> dict[str, Any]:
        return {k: st.get(k) for k in keys}

    return {
        "gate": (state_hash(got["gate"]), state_hash(want.get("gate"))),
        "sigma": (state_hash(got["sigma"]), state_hash(want.get("sigma"))),
        "claims": (state_hash(claims(got)), state_hash(claims(want))),
    }


def memory_body(st: dict[str, Any]) -> dict[str, Any]:
    """What a replay compares of a memory state: everything the transcript determines. Left out:
    when each memory was last read (``last_access`` of a record, the bank's ``access``), since
    reading memory (building a context) is not in the transcript; ``priors``, lessons from the
    cross-game insight bank, which the replay starts from as saved; and the settings the replay's
    memory is built with (``embedder``, ``store``, ``store_options``: a replay always rebuilds
    memory in a flat in-memory store). ``config`` is compared, so a setting that does not read
    back as saved is found."""
    bank, refl = st["bank"], st.get("reflector") or {}
    return {
        "seq": bank.get("seq"),
        "records": [{k: v for k, v in r.items() if k != "last_access"} for r in bank["records"]],
        "corrections": list(bank.get("corrections", ())),
        "reflector": {"pressure": dict(refl.get("pressure", {})), "tried": dict(refl.get("tried", {}))},
        "quests_done": sorted(st.get("quests_done", ())),
        "witnesses": st.get("witnesses", {}),
        "config": st.get("config"),
    }


def memory_digest(mem: Any) -> str:
    """The digest of a live memory's ``memory_body``, its pending writes indexed first (the
    next read would have done it; a read in play may have done it earlier)."""
    mem.bank.flush()
    return state_hash(memory_body(mem.get_state()))


def saved_memory_digest(saved: dict[str, Any], like: Any) -> str:
    """``memory_digest`` of a saved memory state, restored into a memory like ``like`` when writes
    were still pending there, so they are indexed as the replayed ones are."""
    if not saved["bank"].get("corrections"):
        return state_hash(memory_body(saved))
    from memory.runtime import GameMemory

    copy = GameMemory(like.spec, embedder=like.bank.embedder, store="flat", config=like.cfg)
    copy.set_state(saved)
    return memory_digest(copy)
