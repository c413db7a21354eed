"""Implementations of the ``parley`` subcommands (argparse namespaces in, exit codes out)."""

from __future__ import annotations

import contextlib
import json
import sys
from argparse import Namespace
from pathlib import Path

from game.core.errors import InputError
from game.core.files import check_output, write_output

SCHEMA_PATH = Path("worlds/schema/world.schema.json")

GAME_FLAGS = {
    "seed": "--seed",
    "player": "--player",
    "memory.embedder": "--embedder",
    "memory.store": "--store",
    "memory.chroma_host": "--chroma-host",
    "memory.chroma_port": "--chroma-port",
    "memory.memo": "--budget",
    "llm_npcs": "--llm-npcs",
    "memo_llm": "--memo-llm",
}
"""GameConfig's fields and the ``parley run`` flags that set them (``game.cli.flags.from_flags``)."""
EPISODE_FLAGS = {"turns": "--turns", "scene": "--council", **{f"game.{k}": v for k, v in GAME_FLAGS.items()}}


def memory_options(args: Namespace) -> dict | None:
    """GameMemory options from the CLI's memory flags (None when --no-memory)."""
    if args.no_memory:
        return None
    from memory.config import MemoConfig

    cfg = MemoConfig() if args.budget is None else MemoConfig(budget=args.budget)
    store, server = chroma_server(args)
    options = {"embedder": args.embedder or "minilm", "store": store, "config": cfg}
    return {**options, "store_options": server} if server else options


def note(text: str) -> None:
    """A note to the player before the game starts, on stderr (the terminal app shows its own
    in its notification area: ``game.tui.app.Notes``)."""
    print(f"parley: note: {text}", file=sys.stderr)


def memory_fallback(args: Namespace, say=note) -> None:
    """Agent memory is on by default at the CLI, with the MiniLM embedder of the 'memory' extra. In an
    install without it (``pip install parley-engine``, the light core) memory is turned off with a
    note (``args.no_memory`` is set), unless a memory flag asked for it: then it is an
    ``ExtraMissing`` error (exit 2) naming the extra. ``--embedder hash`` (flat store) needs no extra."""
    if args.no_memory:
        return
    from game.core.extras import CHROMA, MINILM, ExtraMissing, install_command, missing

    hint = "--embedder hash keeps memory on without it; --no-memory plays without agent memory"
    if getattr(args, "chroma_host", None) is not None or args.store == "chroma":
        gone = missing("memory", CHROMA)
        if gone:
            raise ExtraMissing(
                "the Chroma vector store (--store chroma)",
                "memory",
                gone,
                hint="--no-memory plays without agent memory",
            )
    if (args.embedder or "minilm") != "minilm":
        return
    gone = missing("memory", MINILM)
    if not gone:
        return
    asked = [
        flag
        for flag, on in (
            ("--embedder minilm", args.embedder),
            ("--store", args.store),
            ("--chroma-host", getattr(args, "chroma_host", None)),
            ("--budget", args.budget),
            ("--insights", args.insights),
            ("--memo-llm", getattr(args, "memo_llm", None) or None),
        )
        if on is not None
    ]
    if asked:
        raise ExtraMissing(f"agent memory ({', '.join(asked)})", "memory", gone, hint=hint)
    args.no_memory = True
    say(f"agent memory is off: its MiniLM embedder needs the 'memory' extra ({install_command('memory')}); {hint}")


def chroma_server(args: Namespace) -> tuple[str, dict]:
    """The vector store the flags name, and the Chroma server's host and port ({} for none)."""
    host, port = getattr(args, "chroma_host", None), getattr(args, "chroma_port", None)
    if host is None:
        if port is not None:
            raise InputError("--chroma-port needs --chroma-host", hint="name the server: --chroma-host H")
        return args.store or "flat", {}
    if not host.strip():
        raise InputError("--chroma-host is empty", hint="give the server's host name, e.g. localhost")
    if args.store == "flat":
        raise InputError("--chroma-host needs --store chroma", hint="drop --store flat")
    if port is not None and not 0 < port < 65536:
        raise InputError(f"--chroma-port {port} is not a port", hint="give 1-65535")
    return "chroma", {"host": host.strip(), "port": 8000 if port is None else port}


def insight_bank(args: Namespace):
    """The cross-game insight bank named by the flags, or None (memory off or --no-insights)."""
    if args.no_memory or args.no_insights:
        return None
    from game.play.save_files import saves_dir
    from memory.insights import InsightBank

    return InsightBank(args.insights or saves_dir(getattr(args, "saves_dir", None)) / "insights.json")


def llm_client(args: Namespace, seed: int):
    """The LLM client the --llm flags describe, or None. Bad settings are input errors (exit 2)."""
    if getattr(args, "llm", None) is not None and not args.llm.strip():
        raise InputError(
            "--llm is empty", hint="give the endpoint's URL, e.g. --llm http://localhost:11434/v1, or 'env'"
        )
    memo_llm_paths(args)
    if not getattr(args, "llm", None):
        if getattr(args, "model", None) or getattr(args, "llm_cache", None) or getattr(args, "llm_jury", False):
            raise InputError(
                "--model, --llm-cache and --llm-jury need --llm URL", hint="e.g. --llm http://localhost:11434/v1"
            )
        return None
    from agents.llm.config import LLMConfig

    cfg = LLMConfig.from_env(
        base_url=None if args.llm == "env" else args.llm,
        model=args.model,
        timeout=args.llm_timeout,
        cache_dir=args.llm_cache,
        max_retries=args.llm_retries,
    )
    if cfg.base_url is None and args.llm == "env":
        raise InputError("--llm env: OPENAI_BASE_URL is not set", hint="export OPENAI_BASE_URL=http://host:port/v1")
    if cfg.api_key is None and not cfg.is_local:
        raise InputError(
            f"--llm {cfg.public_dict()['base_url']}: no API key for a remote endpoint",
            hint="export OPENAI_API_KEY=... (it is never saved); local servers need none",
        )
    from game.play.compose import new_client

    return new_client(cfg, seed)


def memo_llm_paths(args: Namespace) -> list[str]:
    """The MEMO paths --memo-llm names (checked by argparse); they need --llm and memory (exit 2)."""
    from game.play.compose import check_memo_llm

    paths = list(getattr(args, "memo_llm", None) or [])
    check_memo_llm(paths, getattr(args, "llm", None) or None, None if getattr(args, "no_memory", False) else "on")
    return paths


def llm_npc_ids(args: Namespace, world) -> object:
    """``"all"`` or the set of NPC ids named by --llm-npcs (unknown ids are input errors)."""
    raw = getattr(args, "llm_npcs", "all") or "all"
    if raw == "all":
        return "all"
    if raw == "none":
        return set()
    from game.core.errors import did_you_mean

    ids = [x.strip() for x in raw.split(",") if x.strip()]
    for nid in ids:
        if nid not in world.spec.npcs:
            raise InputError(
                f"--llm-npcs: no NPC {nid!r} in {world.spec.id}",
                hint=did_you_mean(nid, world.spec.npcs) or f"NPCs: {', '.join(world.spec.npcs)}",
            )
    return set(ids)


def print_llm_usage(client, out=print) -> None:
    """Calls, tokens and time per agent (what an LLM game cost)."""
    if client is None:
        return
    by_agent = client.usage_by_agent()
    if not by_agent:
        return
    out(f"LLM usage ({client.config.model}; replies asked as {client.reply_format}):")
    w = max(12, *(len(a) for a in by_agent))  # memo:importance and the like
    out(
        f"  {'agent':{w}} {'calls':>5} {'prompt':>7} {'reused':>7} {'compl.':>7} {'ms':>8} {'retries':>7} "
        f"{'cached':>6} {'invalid':>7}"
    )
    for agent, u in sorted(by_agent.items()):
        out(
            f"  {agent:{w}} {u.calls:>5} {u.prompt_tokens:>7} {u.prompt_cached:>7} {u.completion_tokens:>7} "
            f"{u.latency_ms:>8.0f} {u.retries:>7} {u.cache_hits:>6} {u.invalid:>7}"
        )


def cmd_play(args: Namespace) -> int:
    """``parley play``: the terminal app on a terminal, the line console with --plain or piped input."""
    from game.cli.serve import served_in_browser

    tui = not args.plain and (served_in_browser() or (sys.stdin.isatty() and sys.stdout.isatty()))
    say = note
    if tui:
        from game.tui.app import Notes  # the terminal app shows these notes once it opens

        say = Notes()
    from game.cli.play import app_start, mention_autosave, play_game, play_setup

    seed, llm = play_setup(args, say)
    if tui:
        from game.tui import leaving, run_tui

        maps: list = []
        start = app_start(args, seed, llm, say, maps)
        _autosave_on_signals()
        with leaving() as code, contextlib.ExitStack() as after:
            after.callback(print_llm_usage, llm)
            after.callback(lambda: [getattr(f, "close", lambda: None)() for f in maps])
            code.append(run_tui(**start))
    from game.play.warmup import background_memory

    with background_memory() if sys.stdin.isatty() else contextlib.nullcontext():  # a person types: no turn waits
        game = play_game(args, seed, llm)
    game.warmup.start()
    if hasattr(sys.stdin, "reconfigure"):  # bytes that are not UTF-8 become U+FFFD, never an error
        sys.stdin.reconfigure(errors="replace")
    _autosave_on_signals()
    if not args.load:
        mention_autosave(game, args.saves_dir)
    from game.cli.console import run_console

    follower = None
    if getattr(args, "map", False):
        from game.map.window import map_follower

        follower = map_follower(game)
    try:
        return run_console(game, saves_base=args.saves_dir, on_reply=follower)
    finally:
        getattr(follower, "close", lambda: None)()
        print_llm_usage(llm)


def cmd_watch(args: Namespace) -> int:
    """``parley watch``: the terminal app plays the seat's game (pause, step, speed); leaving it
    says the score and autosaves an unfinished game, as after play. Start-up notes (memory off
    for want of an extra) are shown in the app's notification area, as ``parley play`` does."""
    from game.tui.app import Notes

    say = Notes()
    start, llm = watch_start(args, say)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise InputError(
            "parley watch needs a terminal", hint=f"for a headless run: parley run {args.world} --player {args.player}"
        )
    from game.tui import leaving
    from game.tui.screens.watch import run_watch

    _autosave_on_signals()
    with leaving() as code, contextlib.ExitStack() as after:
        after.callback(print_llm_usage, llm)
        code.append(run_watch(**start))


def watch_start(args: Namespace, say=note) -> tuple[dict, object]:
    """``parley watch``'s checks (errors before the screen opens), then ``run_watch``'s arguments
    (notes go to ``say``) and the LLM client."""
    from game.play.worlds import load_world

    world = load_world(args.world)  # a bad world or seat is an error before the screen opens
    memory_fallback(args, say)
    llm = llm_client(args, args.seed)
    if args.player == "human":
        raise InputError("--player human: nobody to watch", hint="parley play is for playing yourself")
    if args.player == "llm" and llm is None:
        raise InputError("--player llm needs --llm URL", hint="e.g. --llm http://localhost:11434/v1 --model llama3.1")
    if args.player.startswith("script:") and not Path(args.player[7:]).is_file():
        raise InputError(f"--player {args.player}: no such file", hint="script:FILE, one command per line")
    if args.player not in ("autopilot", "llm") and ":" not in args.player:
        from agents.seats import make_seat

        make_seat(args.player)  # an unknown seat name is an input error, with a suggestion
    elif ":" in args.player and not args.player.startswith("script:"):
        from agents.seats import callable_from

        callable_from(args.player)
    npcs = llm_npc_ids(args, world)

    def make_game():
        from game.play.session import Game

        return Game(
            world,
            seed=args.seed,
            player_kind=args.player,
            memory=memory_options(args),
            insights=insight_bank(args),
            llm=llm,
            llm_npcs=npcs,
            jury=args.llm_jury,
            memo_llm=memo_llm_paths(args),
        )

    start = {"make_game": make_game, "seat": args.player, "speed": args.speed, "saves_base": args.saves_dir}
    return {**start, "notes": say}, llm


def _autosave_on_signals() -> None:
    """SIGTERM and SIGHUP (``kill``, a closed terminal or tmux pane) end the game the way Ctrl-C
    does: the console's clean-up autosaves, then the process exits with 128 + the signal."""
    import signal

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None:
            signal.signal(sig, stop)


def print_turn(reply) -> None:
    """Print a turn as a headless run shows it: the command, then what the player perceived."""
    from game.core.text import shown

    print(f"> {shown(reply.said if reply.typed else reply.command or 'wait')}")
    for line in reply.lines:
        print("  " + line)


def episode_config(args: Namespace, world) -> object:
    """The EpisodeConfig that ``parley run``'s flags describe."""
    from game.cli.flags import from_flags
    from game.play.config import EpisodeConfig, GameConfig, MemorySettings

    if args.llm_player:
        player = "llm"
    elif args.autopilot:
        player = "autopilot"
    elif args.player:
        player = args.player
    elif args.script:
        player = f"script:{args.script}"
    else:
        player = "autopilot"  # --council without a seat
    if player.startswith("script:") and args.out and Path(args.out).resolve() == Path(player[7:]).resolve():
        raise InputError("--out would overwrite the script", hint="write the transcript to another file")
    memory = None
    if not args.no_memory:
        store, server = chroma_server(args)
        memory = from_flags(
            MemorySettings,
            {k.removeprefix("memory."): v for k, v in GAME_FLAGS.items()},
            embedder=args.embedder or "minilm",
            store=store,
            chroma_host=server.get("host"),
            chroma_port=server.get("port", 8000),
            memo=None if args.budget is None else {"budget": args.budget},
        )
    npcs = llm_npc_ids(args, world)
    game = from_flags(
        GameConfig,
        GAME_FLAGS,
        world=str(world.folder),
        seed=args.seed,
        player=player,
        memory=memory,
        jury=args.llm_jury,
        llm_npcs=npcs if npcs == "all" else sorted(npcs),
        trust=not args.no_trust,
        memo_llm=memo_llm_paths(args),
    )
    keep = bool(getattr(args, "keep_memory", False))
    if args.council:
        return from_flags(
            EpisodeConfig,
            EPISODE_FLAGS,
            game=game,
            kind="council",
            scene=args.council,
            turns=args.turns,
            transcript=bool(args.out),
            keep_memory=keep,
        )
    return from_flags(
        EpisodeConfig, EPISODE_FLAGS, game=game, turns=args.turns, transcript=bool(args.out), keep_memory=keep
    )


def cmd_run(args: Namespace) -> int:
    """``parley run``: one headless episode (``game.play.episode.play_episode``), printed."""
    if args.out is not None:  # refused before the run, not after it
        if not args.out.strip():
            raise InputError("--out is empty", hint="give a file name, or leave --out out")
        check_output(args.out)
    if not (args.script or args.scene or args.llm_player or args.autopilot or args.player or args.council):
        raise InputError(
            "nothing to run: say who plays",
            hint="--script FILE, --autopilot, --player SEAT, --llm-player, --scene ID or --council ID",
        )
    if args.scene:
        if args.council:
            raise InputError("--council and --scene are two different runs", hint="give one of them")
        return _run_scene(args)
    from game.play.episode import play_episode
    from game.play.worlds import load_world

    if args.negotiators:
        raise InputError(
            "--negotiators works with --scene", hint="e.g. parley run WORLD --scene ID --negotiators llm,boulware"
        )
    memory_fallback(args)
    llm = llm_client(args, args.seed)
    if (args.llm_player or args.player == "llm") and llm is None:
        raise InputError(
            f"{'--llm-player' if args.llm_player else '--player llm'} needs --llm URL",
            hint="e.g. --llm http://localhost:11434/v1 --model llama3.1",
        )
    world = load_world(args.world)
    config = episode_config(args, world)
    bank = insight_bank(args)
    from game.play.session import TurnError

    try:
        result = play_episode(
            config,
            llm=llm,
            insights=bank,
            on_turn=None if args.quiet else print_turn,
            on_note=lambda note: print(f"parley: {note}", file=sys.stderr),
        )
    except TurnError as e:  # a bug: the turn was taken back; saved in its own slot, said by main (exit 1)
        from game.play.autosave import report_failed_turn

        report_failed_turn(e, None, name=f"run-{world.spec.id}")
        raise
    if args.out:  # written only after a clean run, atomically: an old file is never half-replaced
        write_output(Path(args.out), result.transcript or "")
    print(
        f"world {result.world} seed {result.seed}: turn {result.turn}, score {result.score}, "
        f"quests {len(result.quests_done)}/{result.quests_total}, {'WON' if result.won else 'not won'}"
        f", state {result.state_hash}"
    )
    if args.out:
        print(f"transcript: {args.out}")
    if result.learned:
        print(f"insights: {result.learned} lessons recorded in {bank.path}")
    print_llm_usage(llm)
    return 0


def _run_scene(args: Namespace) -> int:
    from game.play.config import EpisodeConfig, GameConfig
    from game.play.episode import play_episode
    from game.play.worlds import load_world

    if args.memo_llm or args.keep_memory:
        raise InputError(
            f"{'--memo-llm' if args.memo_llm else '--keep-memory'} is for games with memory; a --scene run has none",
            hint="leave it out, or play the scene inside a game",
        )
    world = load_world(args.world)
    kinds = _scene_kinds(args, world.spec.scenes.get(args.scene))
    llm = llm_client(args, args.seed)
    config = EpisodeConfig(
        game=GameConfig(world=str(world.folder), seed=args.seed, player="human", facts=False),
        kind="negotiation",
        scene=args.scene,
        negotiators=kinds,
    )
    result = play_episode(config, llm=llm)
    for note in result.notes:
        print(f"  {note}")
    if not args.quiet:
        for m in result.history:
            terms = ", ".join(f"{k}={v}" for k, v in m["terms"].items()) if m.get("terms") else ""
            print(f"  round {m['round']:>2}  {m['party']:10} {m['kind']:9} {terms}")
    print(format_metrics(args.scene, result.status, result.agreement, result.metrics))
    if args.out:
        write_output(
            Path(args.out),
            json.dumps(
                {
                    "scene": args.scene,
                    "status": result.status,
                    "agreement": result.agreement,
                    "history": result.history,
                    "metrics": result.metrics,
                },
                indent=1,
            )
            + "\n",
        )
        print(f"result: {args.out}")
    print_llm_usage(llm)
    return 0


def _scene_kinds(args: Namespace, scene) -> list | None:
    """Negotiator kinds per party from --negotiators (None: the NPCs' configured kinds)."""
    if not args.negotiators or scene is None or not hasattr(scene, "parties"):
        return None
    from agents.negotiators import KINDS
    from game.core.errors import did_you_mean

    kinds = [k.strip() for k in args.negotiators.split(",")]
    if len(kinds) != len(scene.parties):
        raise InputError(
            f"--negotiators needs {len(scene.parties)} kinds (one per party: "
            f"{', '.join(p.id for p in scene.parties)}), got {len(kinds)}"
        )
    known = [*KINDS, "llm"]
    for k in kinds:
        if k not in known:
            raise InputError(
                f"--negotiators: unknown kind {k!r}", hint=did_you_mean(k, known) or f"kinds: {', '.join(known)}"
            )
    return kinds


def format_metrics(scene_id: str, status: str, agreement: dict | None, d: dict) -> str:
    """A short human summary of a closed negotiation's outcome metrics (``OutcomeMetrics.to_dict()``)."""

    def terms(t):
        return ", ".join(f"{k}={v}" for k, v in t.items()) if t else "none"

    lines = [f"{scene_id}: {status}" + (f" on {terms(agreement)}" if agreement else "")]
    for p in d["utilities"]:
        lines.append(f"  {p:10} utility {d['utilities'][p]:.3f} (reservation {d['reservations'][p]:.3f})")
    lines.append(
        f"  social welfare {d['social_welfare']:.3f} of max {d['max_social_welfare']:.3f}; "
        f"Pareto-optimal: {'yes' if d['pareto_optimal'] else 'no'} "
        f"(distance {d['distance_to_frontier']:.3f}, frontier {d['frontier_size']} of {d['outcome_count']})"
    )
    if d.get("nash_terms"):
        lines.append(f"  Nash point {terms(d['nash_terms'])} (distance {d['distance_to_nash']:.3f})")
    if d.get("ks_terms"):
        lines.append(f"  Kalai-Smorodinsky point {terms(d['ks_terms'])} (distance {d['distance_to_ks']:.3f})")
    return "\n".join(lines)
