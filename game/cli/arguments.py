"""The ``parley`` command's arguments: one argparse subparser per command, their flags, checks
and help. Only argparse is imported here, so ``parley --help`` starts fast."""

from __future__ import annotations

import argparse
from typing import Any

from game import __version__
from game.cli.flags import folder_value, model_value, text_value
from game.cli.model import add_model_parser, port_number
from game.cli.options import llm_flags, memory_flags
from game.cli.tournament_args import add_tournament_parsers

EPILOG = """examples:
  parley play                          play the default world (harbor)
  parley play worlds/council --seed 7  play another world with a seed
  parley play --load mysave            continue a saved game
  parley run worlds/harbor --script moves.txt --out run.jsonl   play a file of commands, one a line
  parley run worlds/bazaar --scene spice_for_silk   a standalone negotiation between NPCs
  parley run worlds/harbor --autopilot --seed 3 --out run.jsonl   the autopilot plays
  parley play harbor-v1 --llm local        NPCs speak through the bundled local model (no key)
  parley run harbor-v1 --player llm --llm local   the local model plays the player's seat
  parley play --llm http://localhost:11434/v1 --model llama3.1   NPCs speak through Ollama
  parley run worlds/bazaar --scene spice_for_silk --negotiators llm,boulware --llm URL
  parley validate worlds               check every world folder in worlds/ (exit 2 on any error)
  parley new-world my-world            scaffold a world that validates
  parley lexicon harbor --read "The tide table is in the harbormaster's office."   how the gate reads a claim
  parley new-world my-market --template trade   (or council) a trading or council starter world
  parley saves list | show NAME | rm NAME
  parley replay NAME                   re-run a save's transcript and check its state hash
  parley watch harbor-v1 --player autopilot   watch an agent play in the terminal app
  parley serve harbor-v1 --port 8000   the terminal app in a web browser (http://localhost:8000)
  parley replay NAME --tui             step through a save's transcript in the terminal app
  parley inspect NAME --agent ilse     what an agent remembers this turn, and why (MEMO explain)
  parley trust NAME --audit            whom to trust on what, and every claim the gate admitted or refused
  parley map worlds/harbor --png harbor.png   draw a world's map (or a save's: where everyone is now)
  parley tournament examples/tournaments/negotiation.toml   a headless round robin with ratings and a report
  parley import dond test.txt          Deal or No Deal dialogues as a tournament scenario set
"""


WORLD_HELP = "a shipped world's id or name (harbor-v1, harbor) or a world folder"


def _count(text: str) -> int:
    """argparse type: a whole number >= 0."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {n}")
    return n


# the models the flags' values go into (imported only when a flag is given): each flag's value is
# judged by the field it sets (game.cli.flags.model_value)


def _speed(text: str) -> float:
    """argparse type: turns per second (above 0), or ``max``."""
    if text.strip().lower() == "max":
        return float("inf")
    try:
        speed = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected turns per second or 'max', got {text!r}") from None
    if not speed > 0:
        raise argparse.ArgumentTypeError(f"must be above 0 (or 'max'), got {text}")
    return speed


def _watch_parser(sub: Any) -> None:
    """``parley watch``: the terminal app plays an agent's game."""
    w = sub.add_parser("watch", help="watch an agent play a world in the terminal app (pause, step, speed)")
    w.add_argument("world", metavar="WORLD", help=WORLD_HELP)
    w.add_argument(
        "--player",
        metavar="SEAT",
        default="autopilot",
        type=text_value,
        help="who plays: autopilot (default), llm (needs --llm URL), script:FILE, or module:function",
    )
    w.add_argument(
        "--seed", type=model_value("game.play.config:GameConfig", "seed"), default=0, help="random seed (default 0)"
    )
    w.add_argument(
        "--speed",
        type=_speed,
        default=2.0,
        metavar="N",
        help="turns per second (default 2), or max; + and - change it while watching",
    )
    w.add_argument(
        "--saves-dir",
        metavar="DIR",
        type=folder_value,
        help="where the autosave goes (default ./saves or $PARLEY_SAVES)",
    )
    memory_flags(w)
    llm_flags(w)


def _serve_parser(sub: Any) -> None:
    """``parley serve``: the terminal app in a web browser; each page runs ``parley play`` with these flags."""
    s = sub.add_parser(
        "serve",
        help="serve the terminal app in a web browser (needs the serve extra); each page plays its own game",
        description="Serve the terminal app over HTTP with textual-serve: open http://HOST:PORT in a "
        "browser and play as in the terminal. Every page runs its own `parley play WORLD` with the flags "
        "given here. Ctrl-C stops the server.",
    )
    s.add_argument("world", nargs="?", default=None, metavar="WORLD", help=f"{WORLD_HELP} (default: harbor)")
    s.add_argument(
        "--host",
        type=text_value,
        default="localhost",
        help="the address to listen on (default localhost; 0.0.0.0: all)",
    )
    s.add_argument("--port", type=port_number, default=8000, help="the port to listen on (default 8000)")
    s.add_argument(
        "--seed",
        type=model_value("game.play.config:GameConfig", "seed"),
        default=None,
        help="random seed of each game (default 0)",
    )
    s.add_argument(
        "--saves-dir", metavar="DIR", type=folder_value, help="where saves live (default ./saves or $PARLEY_SAVES)"
    )
    memory_flags(s)


def _run_parser(sub: Any) -> None:
    """``parley run``: a headless episode (a script, a seat, a negotiation or a council scene)."""
    run = sub.add_parser("run", help="run a world headless from a script, or a standalone negotiation scene")
    run.add_argument("world", metavar="WORLD", help=WORLD_HELP)
    src = run.add_mutually_exclusive_group()
    src.add_argument("--script", metavar="FILE", type=text_value, help="commands, one per line (# comments)")
    src.add_argument("--scene", metavar="ID", type=text_value, help="run a negotiation scene between its NPC parties")
    src.add_argument(
        "--llm-player",
        action="store_true",
        help="let an LLM play (needs --llm URL); each reply must be a command that parses",
    )
    src.add_argument(
        "--autopilot",
        action="store_true",
        help="let the built-in heuristic player play (default --turns: the world's max_turns)",
    )
    src.add_argument(
        "--player",
        metavar="SEAT",
        type=text_value,
        help="who plays the player's seat: autopilot, llm, script:FILE, or module:function "
        "(an importable str -> str callable that reads what a player is shown and answers "
        "with a command)",
    )
    run.add_argument(
        "--council",
        metavar="ID",
        type=text_value,
        help="play until the council scene ID has voted (with --autopilot, --player or --script; "
        "alone: the autopilot plays)",
    )
    run.add_argument(
        "--seed", type=model_value("game.play.config:GameConfig", "seed"), default=0, help="random seed (default 0)"
    )
    run.add_argument(
        "--turns", type=model_value("game.play.config:EpisodeConfig", "turns"), default=None, help="stop after N turns"
    )
    run.add_argument("--out", metavar="FILE", help="write the JSONL transcript here")
    run.add_argument("--quiet", action="store_true", help="print only the summary")
    run.add_argument(
        "--no-trust", action="store_true", help="with --autopilot: ignore what Σ-Mem has learned about whom to trust"
    )
    run.add_argument(
        "--negotiators",
        metavar="KINDS",
        type=text_value,
        default=None,
        help="with --scene: negotiator kinds for the two parties, e.g. boulware,llm "
        "(default: each NPC's configured kind)",
    )
    run.add_argument(
        "--keep-memory",
        action="store_true",
        help="with --chroma-host: keep the run's collection on the server (by default it is dropped "
        "when the run ends; its name is printed)",
    )
    memory_flags(run)
    llm_flags(run)


def _workers(text: str) -> int:
    n = _count(text)
    if n < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return n


DEBATE_EPILOG = """examples:
  parley debate                                    a generated hidden-profile task, memo masking
  parley debate --task-seed 7 --masking none       the same kind of task without masking
  parley debate worlds/council --scene weir_council   the council of a world, headless (NPCs only)
  parley debate --masking window --plot flow.png   the viewpoint flow (each member's stance per round)
  parley debate --llm http://localhost:11434/v1 --model llama3.1 --masking subjective
                                                   LLM members; each labels its peers' statements keep/mask
"""


def _debate_parser(sub: Any) -> None:
    d = sub.add_parser(
        "debate",
        help="a council debate with masked working memory, headless",
        description="Run a council debate: members speak in rounds from what their masked "
        "working memory shows them, a coordinator that knows only the transcript stops on "
        "consensus (after a last call for unheard evidence that brought none) and the council votes. Prints the "
        "transcript, the decision, redundancy and effective turns.",
        epilog=DEBATE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    d.add_argument(
        "world",
        nargs="?",
        metavar="WORLD",
        help="a world with a council scene (default: a generated hidden-profile task)",
    )
    d.add_argument(
        "--scene", metavar="ID", type=text_value, help="the council scene (needed when the world has several)"
    )
    d.add_argument(
        "--task-seed",
        type=_count,
        default=0,
        metavar="N",
        help="which generated hidden-profile task (no WORLD; default 0)",
    )
    d.add_argument(
        "--masking",
        choices=("none", "window", "dedupe", "memo", "objective", "subjective"),
        default="memo",
        help="the members' working memory: none (full history), window (last statements), "
        "dedupe (the first mention of each evidence item), memo (redundancy, controversy, "
        "novelty, anchors; the default), objective (the most confident speakers), "
        "subjective (each LLM member labels its peers' statements; needs --llm)",
    )
    d.add_argument(
        "--rounds",
        type=model_value("game.council.session:CouncilConfig", "max_rounds"),
        default=10,
        metavar="N",
        help="most rounds (default 10)",
    )
    d.add_argument(
        "--chair",
        choices=("transcript", "declared", "oracle"),
        default="transcript",
        help="what the coordinator knows: transcript (what was said; the default), declared (also each "
        "member's count of its own unstated items), oracle (an ablation: who holds what)",
    )
    d.add_argument(
        "--budget",
        type=model_value("game.council.context:MaskingConfig", "budget", "tokens"),
        default=200,
        metavar="TOKENS",
        help="context tokens per member per turn, the same for every mode (default 200)",
    )
    d.add_argument(
        "--speakers",
        choices=("fixed", "random", "most-controversial", "most-uncertain"),
        default="fixed",
        help="who the coordinator gives the floor to, in what order",
    )
    d.add_argument(
        "--seed",
        type=model_value("game.council.session:CouncilConfig", "seed"),
        default=0,
        help="the debate's seed (default 0)",
    )
    d.add_argument(
        "--plot",
        metavar="FILE",
        type=text_value,
        help="write the viewpoint flow (stance per member per round) as a PNG",
    )
    d.add_argument("--json", action="store_true", help="print the metrics as JSON")
    d.add_argument("--quiet", action="store_true", help="do not print the transcript")
    llm_flags(d, scene=True)


def _play_parser(sub: Any) -> None:
    """``parley play``: a person plays a world in the terminal."""
    play = sub.add_parser("play", help="play a world in the terminal app (--plain: the line console)")
    play.add_argument(
        "world",
        nargs="?",
        default=None,
        metavar="WORLD",
        help=f"{WORLD_HELP} (default: harbor; with --load, where the save's world now lives)",
    )
    play.add_argument("--load", metavar="SAVE", type=text_value, help="continue a saved game (slug or folder)")
    play.add_argument(
        "--seed",
        type=model_value("game.play.config:GameConfig", "seed"),
        default=None,
        help="random seed (default 0; a loaded game keeps its own)",
    )
    play.add_argument(
        "--saves-dir", metavar="DIR", type=folder_value, help="where saves live (default ./saves or $PARLEY_SAVES)"
    )
    play.add_argument(
        "--plain",
        action="store_true",
        help="the line console instead of the terminal app (also used when input is piped)",
    )
    play.add_argument(
        "--map", action="store_true", help="also show a live map in a window (needs the map extra and a display)"
    )
    memory_flags(play)
    llm_flags(play)


def _world_parsers(sub: Any) -> None:
    """``parley validate``, ``schema`` and ``new-world``: world folders and their schema."""
    val = sub.add_parser("validate", help="validate worlds; print every problem; exit 2 on any")
    val.add_argument(
        "paths", nargs="+", metavar="WORLD", help="world folders, folders of worlds, or shipped worlds' ids or names"
    )

    sch = sub.add_parser("schema", help="print or write the JSON Schema for world.toml")
    sch.add_argument("--out", metavar="FILE", type=text_value, help="write to FILE instead of stdout")
    sch.add_argument(
        "--check", metavar="FILE", type=text_value, help="exit 2 if FILE differs from the generated schema"
    )

    lex = sub.add_parser(
        "lexicon", help="what the consistency gate's lexicon holds for a world; --read shows what a sentence gives"
    )
    lex.add_argument("world", metavar="WORLD", help=WORLD_HELP)
    lex.add_argument("--json", action="store_true", help="print everything as JSON")
    lex.add_argument(
        "--read",
        metavar="TEXT",
        action="append",
        type=text_value,
        help="show the claims the extractor reads from TEXT (subject, relation, object, negated); repeatable",
    )

    new = sub.add_parser("new-world", help="scaffold a new world folder that validates")
    new.add_argument("name", help="world name, e.g. my-keep (becomes id my-keep-v1)")
    new.add_argument("--dir", type=folder_value, default="worlds", help="parent folder (default: worlds)")
    new.add_argument(
        "--template",
        choices=("adventure", "trade", "council"),
        default="adventure",
        help="adventure (default: a lamp to find and a keeper who lies about treasure), "
        "trade (a merchant and a negotiation) or council (a debate and a vote)",
    )


def _saves_parsers(sub: Any) -> None:
    """``parley saves``, ``inspect`` and ``replay``: what a save holds, and re-running it."""
    saves = sub.add_parser("saves", help="list, show or remove saves")
    saves.add_argument(
        "--saves-dir", metavar="DIR", type=folder_value, help="where saves live (default ./saves or $PARLEY_SAVES)"
    )
    ssub = saves.add_subparsers(dest="saves_cmd", metavar="ACTION", required=True)
    ssub.add_parser("list", help="list saves")
    show = ssub.add_parser("show", help="show one save")
    show.add_argument("name", help="save name (as saves list shows it) or folder")
    rm = ssub.add_parser("rm", help="delete a save")
    rm.add_argument("name", help="save name (as saves list shows it) or folder")

    ins = sub.add_parser("inspect", help="explain an agent's memory context in a save (MEMO)")
    ins.add_argument("save", help="save slug or folder")
    ins.add_argument("--agent", default="player", help="player or an NPC id (default: player)")
    ins.add_argument(
        "--saves-dir", metavar="DIR", type=folder_value, help="where saves live (default ./saves or $PARLEY_SAVES)"
    )
    ins.add_argument("--json", action="store_true", help="print the explanation as JSON")
    ins.add_argument("--all", action="store_true", help="list every candidate, not just the top 40")
    ins.add_argument(
        "--tui", action="store_true", help="browse it in the terminal app: any agent, every candidate, the journal (F2)"
    )

    rep = sub.add_parser("replay", help="re-run a save's transcript and check the state hash")
    rep.add_argument("save", help="save slug or folder")
    rep.add_argument(
        "--saves-dir", metavar="DIR", type=folder_value, help="where saves live (default ./saves or $PARLEY_SAVES)"
    )
    rep.add_argument("--tui", action="store_true", help="step through the transcript in the terminal app")
    rep.add_argument(
        "--speed", type=_speed, default=2.0, metavar="N", help="with --tui: rounds per second (default 2), or max"
    )


def _map_parser(sub: Any) -> None:
    """``parley map``: a world's or a save's map as a picture."""
    mp = sub.add_parser("map", help="draw a world (its start) or a save (where everyone is now) into a PNG")
    mp.add_argument("target", metavar="WORLD|SAVE", help=f"{WORLD_HELP}; or a save's name or folder")
    mp.add_argument(
        "--png", "--out", dest="png", metavar="FILE", required=True, help="the picture to write (a .png file)"
    )
    mp.add_argument(
        "--saves-dir", metavar="DIR", type=folder_value, help="where saves live (default ./saves or $PARLEY_SAVES)"
    )


def _trust_parser(sub: Any) -> None:
    """``parley trust``: a save's per-NPC, per-topic trust (Σ-Mem) and the consistency gate's audit trail."""
    tr = sub.add_parser("trust", help="per-NPC, per-topic trust (Σ-Mem) and the consistency gate's audit trail")
    tr.add_argument("save", help="save slug or folder")
    tr.add_argument(
        "--saves-dir", metavar="DIR", type=folder_value, help="where saves live (default ./saves or $PARLEY_SAVES)"
    )
    tr.add_argument("--audit", action="store_true", help="also list every gate decision")
    tr.add_argument("--source", metavar="NPC", help="with --audit: only claims from this source")
    tr.add_argument("--outcome", choices=("admit", "quarantine", "reject"), help="with --audit: only this outcome")
    tr.add_argument("--json", action="store_true", help="print everything as JSON")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="parley",
        description="Parley: turn-based text games for LLM agents and people.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"parley {__version__}")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")
    _play_parser(sub)
    _run_parser(sub)
    _watch_parser(sub)
    _serve_parser(sub)
    _world_parsers(sub)
    _saves_parsers(sub)
    _map_parser(sub)
    add_tournament_parsers(sub)
    _debate_parser(sub)
    _trust_parser(sub)
    add_model_parser(sub)
    return p


# where each command's ``cmd_*`` function lives (the rest: game.cli.commands)
