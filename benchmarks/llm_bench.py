"""LLM benchmark: what a real model does in every LLM seat, measured honestly.

Usage:  python -m benchmarks.llm_bench [--llm local | --llm URL --model M] [--seeds 100-105]
            [--turns 20] [--quick] [--out FILE]

Three parts, against one endpoint (default ``--llm local``: the bundled SmolLM2-135M-Instruct
behind llama.cpp, one server for the run). Every game, negotiation and debate has its own client,
sampling at ``--temperature`` with the unit's seed (reproducible; at temperature 0 every game of
a world would start with the same moves, so seeds would not be independent samples).

1. Seats: the player (memory off, NPCs scripted), the NPC (LLMNPC through the engine's dialogue),
   the negotiator (part 2's moves) and the council debater, each with structured replies
   (``auto``: a JSON Schema narrowed to what is legal now) and with ``prompt`` (no
   response_format: the schema in words, then the reply reader and repairs). Per move: unusable
   (no usable command, refused by the rules, fell back to the scripted voice or the rule-based
   move), repairs asked, calls, tokens, wall seconds, the share of prompt tokens the server reused,
   the reply format used. The ``prompt`` arm is smaller (it costs up to three long replies a move).
   Beside the LLM's player games, on the same worlds, seeds and turns, two players that need no
   model (``--baselines``): a uniform pick from the very command list the LLM's reply is narrowed
   to (``random``, ``--baseline-reps`` games a seed) and the heuristic ``autopilot``; the LLM minus
   each, paired by seed. "0 unusable" is what the enum gives any sampler; these say what is useful.
2. Negotiation: the LLM negotiator against rule-based opponents on generated scenes
   (``--negotiation-seeds``, one scene each, deadline ``--deadline``), both openers; beside it, in
   the same cells, the rule-based kind with the best mean own utility on ``--tune-seeds``, and a
   floor (``--floor``, the ``random`` kind). Differences are paired by cell, and also with the
   scene resampled (a scene's cells share its issues and utilities).
3. Adventure: the LLM player with its memory section at most ``--budget`` tokens: MEMO against the
   full history (cut from the oldest end) and a recency window (the context benchmark's
   baselines), on ``--adventure-seeds``; the memory-off games of part 1 on the same seeds are shown
   beside them.

Parameters are fixed before measuring; intervals are 95% (Wilson for rates, bootstrap over
cells or games for means). The tables are printed; the summaries and every row go to ``--out``
(rows also to ``<out>.rows.jsonl`` as the run goes). ``--quick``: a smoke run of every part.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from benchmarks.lib.cli import seed_list, write_json
from benchmarks.llm import adventure, baselines, negotiation, report, seats, tables
from benchmarks.llm.common import MODES, Endpoint

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "results" / "llm_bench.json"
PARTS = ("seats", "negotiation", "adventure")
QUICK = {
    "seeds": "100",
    "worlds": ["harbor"],
    "turns": 3,
    "adventure_seeds": "100",
    "negotiation_seeds": "100",
    "tune_seeds": "0-4",
    "opponents": ["boulware"],
    "deadline": 2,
    "npc_replies": 2,
    "debate_seeds": "100",
    "debate_rounds": 1,
    "prompt_turns": 1,
    "prompt_debates": 0,
    "prompt_seeds": 1,
    "prompt_npc": 1,
    "prompt_moves": 1,
}


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n", 1)[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    a = ap.add_argument
    a("--llm", default="local", help="local (the bundled model), local:PATH.gguf, or an OpenAI-compatible URL")
    a("--model", default=None, help="the model name at --llm URL (default: PARLEY_MODEL)")
    a("--temperature", type=float, default=0.7, help="sampling temperature; the seed is each unit's (default 0.7)")
    a("--max-tokens", type=int, default=256, help="completion cap per call, both modes (default 256)")
    a("--modes", nargs="+", default=list(MODES), choices=MODES, help="structured modes for the seats table")
    a("--parts", nargs="+", default=list(PARTS), choices=PARTS)
    a("--seeds", default="100-106", help="held-out seeds of the player games, memory off (default 100-106)")
    a("--worlds", nargs="+", default=["harbor", "bazaar"], help="worlds of the player games")
    a("--turns", type=int, default=None, help="turns per game (default 20; --quick 3)")
    a("--baselines", nargs="*", default=list(baselines.PLAYERS), choices=baselines.PLAYERS, help="no-model players")
    a("--baseline-reps", type=int, default=5, help="games a seed of the random player (default 5)")
    a("--floor", default="random", help="a rule-based kind also played in the held-out cells ('none': none)")
    a("--npc-replies", type=int, default=16, help="NPC replies in structured mode (default 16)")
    a("--debate-seeds", default="100-103", help="one hidden-profile debate per seed (default 100-103)")
    a("--debate-rounds", type=int, default=2, help="rounds of two speakers per debate (default 2)")
    a("--prompt-turns", type=int, default=3, help="'prompt' arm: player turns per game (default 3)")
    a("--prompt-seeds", type=int, default=2, help="'prompt' arm: games, first world, first seeds (default 2)")
    a("--prompt-npc", type=int, default=4, help="'prompt' arm: NPC replies (default 4)")
    a("--prompt-debates", type=int, default=1, help="'prompt' arm: debates of one round (default 1)")
    a("--prompt-moves", type=int, default=2, help="'prompt' arm: negotiation moves per opener (default 2)")
    a("--negotiation-seeds", default="100-107", help="held-out scenes, one per seed (default 100-107)")
    a("--tune-seeds", default="0-49", help="scenes on which the rule-based baseline is picked (default 0-49)")
    a("--opponents", nargs="+", default=list(negotiation.OPPONENTS), help="rule-based opponent kinds")
    a("--deadline", type=int, default=10, help="rounds per negotiation (each side moves at most this often)")
    a("--adventure-seeds", default="100-103", help="held-out seeds of the adventure part (default 100-103)")
    a("--adventure-worlds", nargs="+", default=["harbor"], help="worlds of the adventure part (default harbor)")
    a("--budget", type=int, default=256, help="tokens of the memory section in every arm (default 256)")
    a("--boot", type=int, default=2000, help="bootstrap resamples")
    a("--out", type=Path, default=DEFAULT_OUT, help="JSON results")
    a("--quick", action="store_true", help="a smoke run: every part, a few moves each")
    a("--markdown", action="store_true", help="print the tables as Markdown")
    a("--from-json", type=Path, default=None, help="print the tables of a saved run (no model)")
    return ap


def settle(args: argparse.Namespace) -> argparse.Namespace:
    """Apply --quick (where an option was left at its default), check the seed ranges."""
    defaults = build_parser().parse_args([])
    if args.quick:
        for k, v in QUICK.items():
            if getattr(args, k) == getattr(defaults, k):
                setattr(args, k, v)
    args.turns = args.turns or 20
    tune = set(seed_list(args.tune_seeds))
    if tune & set(seed_list(args.negotiation_seeds)):
        raise SystemExit("the tuning and held-out negotiation seeds overlap")
    return args


class Run:
    """Collects rows as the run goes (and appends them to ``<out>.rows.jsonl``); samples the load."""

    def __init__(self, out: Path, progress: Any, task: Any):
        self.rows: list[dict[str, Any]] = []
        self.loads: list[float] = [os.getloadavg()[0]]
        self.partial = out.with_suffix(".rows.jsonl")
        self.partial.parent.mkdir(parents=True, exist_ok=True)
        self.partial.write_text("")
        self.progress, self.task = progress, task

    def add(self, rows: list[dict[str, Any]], what: str) -> None:
        self.rows += rows
        self.loads.append(os.getloadavg()[0])
        with self.partial.open("a") as fh:
            fh.writelines(json.dumps(r, default=str) + "\n" for r in rows)
        self.progress.update(self.task, description=what)

    def advance(self) -> None:
        self.progress.advance(self.task)


def seats_part(args: argparse.Namespace, ep: Endpoint, run: Run) -> list[dict[str, Any]]:
    """Part 1: player games (memory off), NPC replies, debates, and the negotiator's 'prompt' arm."""
    games = []
    seeds, debate_seeds = seed_list(args.seeds), seed_list(args.debate_seeds)
    for mode in args.modes:
        prompt = mode == "prompt"
        worlds = args.worlds[:1] if prompt else args.worlds
        for world in worlds:
            for seed in seeds[: args.prompt_seeds] if prompt else seeds:
                turns = args.prompt_turns if prompt else args.turns
                rows, game = adventure.play_game(ep, world, seed, turns, mode, adventure.NONE, args.budget, run.advance)
                run.add(rows, f"player {mode} {world} seed {seed}")
                games.append(game)
        n = args.prompt_npc if prompt else args.npc_replies
        run.add(seats.npc_replies(ep, mode, n, seeds[0], run.advance), f"NPC replies {mode}")
        debs = debate_seeds[: args.prompt_debates] if prompt else debate_seeds
        rounds = 1 if prompt else args.debate_rounds
        run.add(seats.debates(ep, mode, debs, rounds, run.advance), f"debates {mode}")
        if prompt:  # the structured negotiator's moves are part 2's
            seed, opp = seed_list(args.negotiation_seeds)[0], args.opponents[0]
            for party in negotiation.OPENERS:
                rows, _ = negotiation.llm_cell(ep, mode, seed, args.deadline, opp, party, args.prompt_moves)
                run.add(rows, f"negotiator prompt {party}")
    if "auto" in args.modes:  # the same worlds, seeds and turns without a model: the floor and the heuristic
        games += baselines.player_games(args.baselines, args.worlds, seeds, args.turns, args.baseline_reps)
    return games


def negotiation_part(args: argparse.Namespace, ep: Endpoint, run: Run) -> dict[str, Any]:
    """Part 2: pick the baseline on the tuning seeds, then the LLM and it in every held-out cell."""
    best, means = negotiation.tune(seed_list(args.tune_seeds), args.deadline, args.opponents)
    outcomes = []
    for seed in seed_list(args.negotiation_seeds):
        for opp in args.opponents:
            for party in negotiation.OPENERS:
                rows, out = negotiation.llm_cell(ep, "auto", seed, args.deadline, opp, party, advance=run.advance)
                run.add(rows, f"negotiation seed {seed} vs {opp} as {party}")
                outcomes += [out, negotiation.rule_cell(best, seed, args.deadline, opp, party)]
                if args.floor not in ("none", best):
                    outcomes.append(negotiation.rule_cell(args.floor, seed, args.deadline, opp, party))
    return {"tuning": means, "baseline": best, "outcomes": outcomes}


def adventure_part(args: argparse.Namespace, ep: Endpoint, run: Run) -> list[dict[str, Any]]:
    """Part 3: every context arm on every adventure world and seed, structured replies."""
    games = []
    for world in args.adventure_worlds:
        for seed in seed_list(args.adventure_seeds):
            for arm in adventure.ARMS:
                rows, game = adventure.play_game(ep, world, seed, args.turns, "auto", arm, args.budget, run.advance)
                run.add(rows, f"adventure {arm} {world} seed {seed}")
                games.append(game)
    return games


def expected_moves(args: argparse.Namespace) -> int:
    """About how many moves the run makes (for the progress bar; negotiations end early or late)."""
    n = 0
    if "seats" in args.parts:
        n += len(args.worlds) * len(seed_list(args.seeds)) * args.turns + args.npc_replies
        n += len(seed_list(args.debate_seeds)) * 2 * args.debate_rounds
        if "prompt" in args.modes:
            n += args.prompt_seeds * args.prompt_turns + args.prompt_npc + 2 * args.prompt_debates
            n += 2 * args.prompt_moves
    if "negotiation" in args.parts:
        cells = len(seed_list(args.negotiation_seeds)) * len(args.opponents) * 2
        n += cells * max(1, args.deadline // 2)
    if "adventure" in args.parts:
        n += len(args.adventure_worlds) * len(seed_list(args.adventure_seeds)) * len(adventure.ARMS) * args.turns
    return n


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    args = settle(build_parser().parse_args(argv))
    console = Console(width=max(Console().width, 200))
    if args.from_json is not None:  # the tables of a saved run, no model
        tables.show(console, json.loads(args.from_json.read_text()), args.markdown)
        return 0
    ep = Endpoint(args.llm, args.model, args.temperature, args.max_tokens)
    t0 = time.perf_counter()
    console.print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; endpoint {ep.describe()}")
    bar = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*bar, console=console, transient=True) as progress:
        run = Run(args.out, progress, progress.add_task("starting", total=expected_moves(args)))
        player_games = seats_part(args, ep, run) if "seats" in args.parts else []
        neg = negotiation_part(args, ep, run) if "negotiation" in args.parts else None
        adv_games = adventure_part(args, ep, run) if "adventure" in args.parts else []
    runtime = time.perf_counter() - t0
    load = sum(run.loads) / len(run.loads)
    results = {
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "endpoint": ep.describe(),
        "machine": {"cores": os.cpu_count(), "load_mean": load, "loads": run.loads},
        "runtime_s": runtime,
        **summarise(args, run, load, player_games, neg, adv_games),
        "rows": run.rows,
    }
    write_json(args.out, results)
    results = json.loads(args.out.read_text())  # the tables show what the file holds
    tables.show(console, results, args.markdown)
    console.print(f"runtime {runtime:.0f} s; mean load {results['machine']['load_mean']:.2f} (1-minute average, ")
    console.print(f"sampled after every game, cell and seat); results: {args.out}")
    return 0


def summarise(args: argparse.Namespace, run: Run, load: float, player_games, neg, adv_games) -> dict[str, Any]:
    """The summaries of every part (the adventure table also shows part 1's memory-off games on the
    adventure worlds and seeds, when they were played as long)."""
    results: dict[str, Any] = {"seats": report.seats_table(run.rows), "player_games": player_games}
    results["baselines"] = report.baseline_comparison(player_games, args.boot)
    if neg is not None:
        neg["summary"] = report.negotiation_summary(neg["outcomes"], neg["baseline"], args.boot, run.rows)
        results["negotiation"] = neg
    if adv_games:
        adv_seeds = set(seed_list(args.adventure_seeds))
        same = [
            g
            for g in player_games
            if g["mode"] == "auto" and g["world"] in args.adventure_worlds and g["seed"] in adv_seeds
        ]
        same = [g for g in same if g["turns"] == args.turns]
        games = adv_games + same
        keys = {(g["world"], g["seed"], g["arm"]) for g in games}
        rows = [r for r in run.rows if r["seat"] == "player" and r["mode"] == "auto"]
        rows = [r for r in rows if (r["world"], r["seed"], r["arm"]) in keys]
        results["adventure"] = report.adventure_summary(games, rows, args.budget, args.boot)
        results["adventure"]["games"] = games
    results["goals"] = report.goals(run.rows, load)
    return results


if __name__ == "__main__":
    raise SystemExit(main())
