"""``parley play``'s start: the checks and notes before any game (``play_setup``), the game the
flags describe (``play_game``), and what the terminal app starts with (``app_start``): how to
build the game, where start-up notes go, and the world's autosave to offer."""

from __future__ import annotations

from argparse import Namespace

from game.cli.commands import (
    insight_bank,
    llm_client,
    llm_npc_ids,
    memo_llm_paths,
    memory_fallback,
    memory_options,
    note,
)
from game.core.errors import InputError


def play_setup(args: Namespace, say=note) -> tuple[int, object]:
    """What ``parley play`` checks and says before any game is built: the seed, memory without
    its extra (turned off, said), the LLM client (returned), a map window that cannot open."""
    if args.load and args.seed is not None:
        raise InputError("--seed cannot be changed with --load", hint="a loaded game keeps the seed it was made with")
    seed = 0 if args.seed is None else args.seed
    if not args.load:
        memory_fallback(args, say)
    llm = llm_client(args, seed)
    if getattr(args, "map", False):
        from game.map.window import map_unavailable

        why = map_unavailable()
        if why is not None:
            say(f"map: {why}; playing on without it")
            args.map = False
    return seed, llm


def app_start(args: Namespace, seed: int, llm, say, maps: list) -> dict:
    """``run_tui``'s arguments for ``parley play``: how to build the game (a bad world is an
    error now, before the screen opens), where notes go, and the world's autosave to offer
    (``_resume``); live map windows are added to ``maps``."""
    from game.play.worlds import load_world

    world = None if args.load else load_world(args.world or "worlds/harbor")

    def finish(game):
        return with_map(game, args, maps, say)

    return {
        "make_game": lambda: finish(play_game(args, seed, llm, say)),
        "saves_base": args.saves_dir,
        "notes": say,
        "resume": None if world is None else _resume(args, world, llm, finish, say),
    }


def with_map(game, args: Namespace, maps: list, say=note):
    """With --map in the terminal app: the live map follows every ``game.submit`` of this game
    (``game.map.window.map_follower``); the app needs no change for it."""
    if not getattr(args, "map", False):
        return game
    from game.map.window import map_follower

    follower = map_follower(game, note=say)
    maps.append(follower)
    submit = game.submit

    def submit_and_map(text: str):
        reply = submit(text)
        follower(reply)
        return reply

    game.submit = submit_and_map
    return game


def play_game(args: Namespace, seed: int, llm, say=note):
    """The game ``parley play``'s flags describe: loaded from a save, or new."""
    from game.play.session import Game

    if args.load:
        wanted = getattr(args, "llm_npcs", "all") or "all"
        game = Game.load(
            args.load,
            base=args.saves_dir,
            world_path=args.world,
            llm=llm,
            llm_npcs="all"
            if wanted == "all"
            else {x.strip() for x in wanted.split(",") if x.strip() and wanted != "none"},
            jury=args.llm_jury,
            memo_llm=memo_llm_paths(args),
        )
        if llm is not None:
            llm_npc_ids(args, game.world)  # unknown ids are input errors here too
        if isinstance(game.saved_llm, dict) and game.saved_llm and llm is None:
            from agents.llm.config import redact_url
            from game.core.text import shown

            say(
                f"this game's NPCs spoke through {redact_url(str(game.saved_llm.get('base_url')))} "
                f"({shown(game.saved_llm.get('model'))}); without --llm they are scripted now"
            )
        asked = [
            f
            for f, on in (
                ("--embedder", args.embedder),
                ("--store", args.store),
                ("--chroma-host", getattr(args, "chroma_host", None)),
                ("--chroma-port", getattr(args, "chroma_port", None)),
                ("--budget", args.budget),
            )
            if on is not None
        ]
        if (game.memory is not None and args.no_memory) or (game.memory is None and asked):
            raise InputError(
                f"the save was made with memory {'on' if game.memory else 'off'}; "
                "memory settings come from the save and cannot be changed with --load",
                hint="drop the memory flags, or start a new game with them",
            )
        if asked:
            raise InputError(
                f"{', '.join(asked)} cannot be changed with --load", hint="memory settings come from the save"
            )
        if game.memory is not None:
            game.insights = insight_bank(args)
    else:
        from game.play.worlds import load_world

        world = load_world(args.world or "worlds/harbor")
        game = Game(
            world,
            seed=seed,
            memory=memory_options(args),
            insights=insight_bank(args),
            llm=llm,
            llm_npcs=llm_npc_ids(args, world),
            jury=args.llm_jury,
            memo_llm=memo_llm_paths(args),
        )
    return game


def autosave_found(game_or_world, saves_base) -> tuple[str, int] | None:
    """The autosave of this world (its name and turn), or None when there is none that reads."""
    from game.core.errors import ParleyError
    from game.play.autosave import autosave_name
    from game.play.save_files import read_save, save_folder, saves_dir

    saves_dir(saves_base)  # a $PARLEY_SAVES that is no folder is refused now, before the game
    name = autosave_name(game_or_world)
    try:
        return name, int(read_save(save_folder(name, saves_base))["turn"])
    except (ParleyError, OSError, KeyError, TypeError, ValueError):
        return None


def mention_autosave(game, saves_base) -> None:
    """A new game of a world that has an autosave says how to continue that one instead."""
    found = autosave_found(game, saves_base)
    if found is not None:
        name, turn = found
        note(
            f"an autosave of this world exists (turn {turn}); continue it with "
            f"`parley play --load {name}`. If you play on, it is kept as {name}-previous."
        )


def _resume(args: Namespace, world, llm, then, say):
    """The terminal app's offer to continue the world's autosave (``game.tui.app.Resume``), or
    None when there is none. Continuing loads it as ``--load`` would, with the memory settings
    the save was made with; ``then`` finishes the game (the live map)."""
    found = autosave_found(world, args.saves_dir)
    if found is None:
        return None
    from game.tui.app import Resume

    name, turn = found
    kept = {"embedder": None, "store": None, "chroma_host": None, "chroma_port": None, "budget": None}
    loading = Namespace(**{**vars(args), **kept, "load": name, "no_memory": False})
    return Resume(name, turn, lambda: then(play_game(loading, 0, llm, say)))
