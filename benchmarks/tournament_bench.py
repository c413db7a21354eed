"""Tournament speed: Parley's negotiators against NegMAS's on the same round robin.

Usage:  python -m benchmarks.tournament_bench [--scenarios 44] [--seed 0] [--deadline 20] [--repeats 3]
            [--negmas-python /tmp/negmas-venv/bin/python] [--json FILE]

The round robin: ``--scenarios`` generated scenes (``game.negotiation.generate.random_scenes``,
seeded numpy Generator: 2-3 issues of 3-5 values, random weights and value utilities,
reservations up to 0.4), every strategy against every strategy (self-play included) in both
role orders, deadline 20 rounds. The strategies are Parley's seven kinds plus the
opponent-model variants (``+om``) of the time-based, tit-for-tat and aspiration kinds. With 44
scenes each strategy takes a seat in 44 x 23 = 1,012 negotiations.

Speed is CPU time (``time.process_time``) per negotiation, summed over the negotiations a
strategy sat in; negotiations/s = seats / CPU seconds (as in ``agents_bench``, a game's time
counts for both seats), and apart from that over its self-play games alone. Both sides build
everything of a game inside its timer, from utility functions built once per scene: Parley, two
new negotiators (``from_kind``; the random kind seeded per game and side) and a new
``Negotiation`` played to the end; NegMAS, a new ``SAOMechanism(n_steps=deadline)`` with two new
negotiators run to the end. Each framework plays the round robin ``--repeats`` times and each
game counts its least CPU time (outcomes are those of the first repetition; Parley's must not
change between repetitions). Outcome quality is measured for both by Parley's exact metrics on
the same scenes: agreement rate, social welfare (disagreement = sum of reservations) and
distance to the Pareto frontier. Goal: Parley at least 20x NegMAS for every strategy, over its
seats and in self-play.

NegMAS is never a Parley dependency: give ``--negmas-python`` the interpreter of a separate venv
(``python3 -m venv /tmp/negmas-venv && /tmp/negmas-venv/bin/pip install negmas``); this script
writes a worker to a temporary file and runs it there through ``subprocess``. NegMAS's
counterparts are its built-ins: Boulware/Linear/ConcederTBNegotiator, ToughNegotiator,
NaiveTitForTatNegotiator, AspirationNegotiator, RandomNegotiator; for ``+om``,
AdditiveParetoFollowingTBNegotiator with the same curve (time-based, picks the band's outcome
nearest the partner's offers) and NiceTitForTatNegotiator (frequency opponent model). NegMAS
has no aspiration-with-opponent-model kind: ``aspiration+om`` is set against the
pareto-following Boulware. NegMAS's curves are its own (its "boulware" exponent is not
Parley's 0.2), so quality figures compare families, not identical strategies.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from agents.negotiators import KINDS, from_kind
from benchmarks.lib.cli import write_json
from game.negotiation.generate import random_scenes
from game.negotiation.metrics import NegotiationAnalysis
from game.negotiation.runner import apply_move
from game.negotiation.session import Negotiation
from game.negotiation.utility import utilities_for

GOAL = 20.0  # Parley at least this many times NegMAS's negotiations/s, every strategy
MODELLED = ("boulware", "linear", "conceder", "tit_for_tat", "aspiration")
NEGMAS = {
    "boulware": "BoulwareTBNegotiator",
    "linear": "LinearTBNegotiator",
    "conceder": "ConcederTBNegotiator",
    "hardliner": "ToughNegotiator",
    "tit_for_tat": "NaiveTitForTatNegotiator",
    "aspiration": "AspirationNegotiator",
    "random": "RandomNegotiator",
    "boulware+om": "AdditiveParetoFollowingTBNegotiator(boulware)",
    "linear+om": "AdditiveParetoFollowingTBNegotiator(linear)",
    "conceder+om": "AdditiveParetoFollowingTBNegotiator(conceder)",
    "tit_for_tat+om": "NiceTitForTatNegotiator",
    "aspiration+om": "AdditiveParetoFollowingTBNegotiator(boulware)",
}

WORKER = r"""
import json, sys, time, warnings
warnings.filterwarnings("ignore")
from negmas import SAOMechanism, make_issue
from negmas.outcomes import make_os
from negmas.preferences import LinearAdditiveUtilityFunction
from negmas.preferences.value_fun import TableFun
from negmas.sao.negotiators import (AdditiveParetoFollowingTBNegotiator, AspirationNegotiator,
    BoulwareTBNegotiator, ConcederTBNegotiator, LinearTBNegotiator, NaiveTitForTatNegotiator,
    RandomNegotiator, ToughNegotiator)
from negmas.gb.negotiators.titfortat import NiceTitForTatNegotiator

def pf(curve):
    return lambda **kw: AdditiveParetoFollowingTBNegotiator(offering_curve=curve, **kw)

MAKE = {"BoulwareTBNegotiator": BoulwareTBNegotiator, "LinearTBNegotiator": LinearTBNegotiator,
        "ConcederTBNegotiator": ConcederTBNegotiator, "ToughNegotiator": ToughNegotiator,
        "NaiveTitForTatNegotiator": NaiveTitForTatNegotiator, "AspirationNegotiator": AspirationNegotiator,
        "RandomNegotiator": RandomNegotiator, "NiceTitForTatNegotiator": NiceTitForTatNegotiator,
        "AdditiveParetoFollowingTBNegotiator(boulware)": pf("boulware"),
        "AdditiveParetoFollowingTBNegotiator(linear)": pf("linear"),
        "AdditiveParetoFollowingTBNegotiator(conceder)": pf("conceder")}

job = json.load(open(sys.argv[1]))
import negmas
scenes = []
for sc in job["scenes"]:
    issues = [make_issue(values=vals, name=name) for name, vals in sc["issues"]]
    os_ = make_os(issues)
    ufuns = {p["id"]: LinearAdditiveUtilityFunction(
                 values={name: TableFun(p["values"][name]) for name, _ in sc["issues"]},
                 weights=p["weights"], outcome_space=os_, reserved_value=p["reservation"])
             for p in sc["parties"]}
    scenes.append((os_, ufuns))
games = []
for rep in range(job["repeats"]):  # the whole round robin again; each game keeps its least CPU time
    g = 0
    for si, (os_, ufuns) in enumerate(scenes):
        for x, cx in enumerate(job["classes"]):
            for y, cy in enumerate(job["classes"]):
                t = time.process_time()
                m = SAOMechanism(outcome_space=os_, n_steps=job["deadline"])
                m.add(MAKE[cx](name="a"), ufun=ufuns["a"])
                m.add(MAKE[cy](name="b"), ufun=ufuns["b"])
                m.run()
                dt = time.process_time() - t
                if rep == 0:
                    agr = m.agreement
                    games.append([si, x, y, None if agr is None else list(agr), dt, m.state.step])
                else:
                    games[g][4] = min(games[g][4], dt)
                g += 1
json.dump({"version": negmas.__version__, "games": games}, sys.stdout)
"""


def specs() -> list[tuple[str, str, dict]]:
    out = [(k, k, {}) for k in KINDS]
    return out + [(f"{k}+om", k, {"opponent_model": True, "tolerance": 0.05}) for k in MODELLED]


def _seeded(kind: str, params: dict, seed: int, game: int, side: int) -> dict:
    """The random kind's parameters with a seed of its own for this game and side."""
    return {"seed": seed * 1_000_003 + game * 2 + side, **params} if kind == "random" else params


def scene_json(sc, utils) -> dict:
    """The scene as NegMAS needs it: issues in order, normalised weights, authored value utilities."""
    parties = []
    for p in sc.parties:
        u = utils[p.id]
        values = {i: {v: u.value_utility(i, v) for v in sc.issues[i]} for i in sc.issues}
        parties.append({"id": p.id, "weights": u.weights, "values": values, "reservation": u.reservation})
    return {"issues": [[i, list(vs)] for i, vs in sc.issues.items()], "parties": parties}


def run_parley(scenes, utils, analyses, sp, seed: int) -> list[list]:
    """Every game of the round robin: two new negotiators, a new session, the moves to the end."""
    games = []
    n = len(sp)
    for si, (sc, u) in enumerate(zip(scenes, utils)):
        for x, (_, kx, qx) in enumerate(sp):
            for y, (_, ky, qy) in enumerate(sp):
                game = (si * n + x) * n + y
                t = time.process_time()
                pair = {
                    "a": from_kind(kx, u["a"], **_seeded(kx, qx, seed, game, 0)),
                    "b": from_kind(ky, u["b"], **_seeded(ky, qy, seed, game, 1)),
                }
                s = Negotiation(sc, utilities=u, analysis=analyses[si])
                while s.is_open:
                    p = s.turn
                    apply_move(s, p, pair[p].respond(s, p))
                dt = time.process_time() - t
                agr = s.agreement
                games.append([si, x, y, None if agr is None else list(agr.values()), dt, s.round])
    return games


def repeated(run, repeats: int) -> list[list]:
    """``run()`` (a list of games) ``repeats`` times: each game keeps its least CPU time; the
    outcomes must not change from one repetition to the next."""
    games = run()
    for _ in range(repeats - 1):
        again = run()
        for g, h in zip(games, again):
            if g[:4] != h[:4] or g[5] != h[5]:
                raise SystemExit(f"game {g[:3]} ended differently when repeated: {g} vs {h}")
            g[4] = min(g[4], h[4])
    return games


def run_negmas(python: str, scenes, utils, sp, deadline: int, repeats: int) -> dict:
    job = {
        "deadline": deadline,
        "repeats": repeats,
        "classes": [NEGMAS[label] for label, _, _ in sp],
        "scenes": [scene_json(sc, u) for sc, u in zip(scenes, utils)],
    }
    with tempfile.TemporaryDirectory() as tmp:
        wpath, jpath = Path(tmp, "negmas_worker.py"), Path(tmp, "job.json")
        wpath.write_text(WORKER, encoding="utf-8")
        jpath.write_text(json.dumps(job), encoding="utf-8")
        proc = subprocess.run([python, str(wpath), str(jpath)], capture_output=True, text=True, cwd=tmp)
    if proc.returncode != 0:
        raise SystemExit(f"NegMAS worker failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def summarise(games, scenes, analyses, sp) -> dict[str, dict[str, float]]:
    A = len(sp)
    secs = np.zeros((len(scenes), A, A))
    agree = np.zeros_like(secs)
    welfare = np.zeros_like(secs)
    dfront = np.zeros_like(secs)
    for si, x, y, terms, dt, _ in games:
        an = analyses[si]
        outcome = None if terms is None else dict(zip(an.space.issues, terms))
        m = an.evaluate(outcome)
        secs[si, x, y], agree[si, x, y] = dt, m.agreement
        welfare[si, x, y], dfront[si, x, y] = m.social_welfare, m.distance_to_frontier
    out = {}
    for j, (label, _, _) in enumerate(sp):

        def seat(M):
            return np.concatenate([M[:, j, :].ravel(), M[:, :, j].ravel()])

        s = seat(secs)
        out[label] = {
            "seats": int(s.size),
            "cpu_seconds": float(s.sum()),
            "negotiations_per_s": s.size / s.sum(),
            "agreement_rate": float(seat(agree).mean()),
            "welfare": float(seat(welfare).mean()),
            "distance_to_pareto": float(seat(dfront).mean()),
            "self_play_games": len(scenes),
            "self_play_per_s": len(scenes) / secs[:, j, j].sum(),
        }
    out["all"] = {
        "seats": int(secs.size),
        "cpu_seconds": float(secs.sum()),
        "negotiations_per_s": secs.size / secs.sum(),
        "agreement_rate": float(agree.mean()),
        "welfare": float(welfare.mean()),
        "distance_to_pareto": float(dfront.mean()),
        "self_play_games": len(scenes) * A,
        "self_play_per_s": len(scenes) * A / np.trace(secs, axis1=1, axis2=2).sum(),
    }
    return out


def ratios(parley: dict, negmas: dict) -> dict[str, dict[str, float]]:
    """Parley's speed over NegMAS's per strategy: over all its seats, and in self-play."""
    return {
        k: {
            "seats": parley[k]["negotiations_per_s"] / negmas[k]["negotiations_per_s"],
            "self_play": parley[k]["self_play_per_s"] / negmas[k]["self_play_per_s"],
        }
        for k in parley
    }


def print_table(parley: dict, negmas: dict | None, title: str) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title=title)
    t.add_column("strategy")
    t.add_column("Parley neg/s", justify="right")
    if negmas:
        t.add_column("NegMAS counterpart")
        t.add_column("NegMAS neg/s", justify="right")
        t.add_column("Parley/NegMAS", justify="right")
        t.add_column("self-play P/N", justify="right")
    t.add_column("agree" + (" P / N" if negmas else ""), justify="right")
    t.add_column("welfare" + (" P / N" if negmas else ""), justify="right")
    t.add_column("to Pareto" + (" P / N" if negmas else ""), justify="right")
    speed = ratios(parley, negmas) if negmas else {}
    for label, f in parley.items():
        row = [label, f"{f['negotiations_per_s']:,.0f}"]
        if negmas:
            g = negmas[label]
            row += [
                NEGMAS.get(label, "(all)"),
                f"{g['negotiations_per_s']:,.0f}",
                f"{speed[label]['seats']:.1f}x",
                f"{speed[label]['self_play']:.1f}x",
                f"{f['agreement_rate']:.1%} / {g['agreement_rate']:.1%}",
                f"{f['welfare']:.3f} / {g['welfare']:.3f}",
                f"{f['distance_to_pareto']:.3f} / {g['distance_to_pareto']:.3f}",
            ]
        else:
            row += [f"{f['agreement_rate']:.1%}", f"{f['welfare']:.3f}", f"{f['distance_to_pareto']:.3f}"]
        t.add_row(*row)
    Console(width=200).print(t)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenarios", type=int, default=44, help="generated scenes (default 44: >= 1,000 seats each)")
    ap.add_argument("--seed", type=int, default=0, help="scene generator seed (numpy Generator)")
    ap.add_argument("--deadline", type=int, default=20, help="rounds (NegMAS n_steps)")
    ap.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="play the round robin this many times; each game counts its least CPU time (default 3)",
    )
    ap.add_argument("--negmas-python", metavar="PATH", help="python of a venv with negmas installed")
    ap.add_argument("--json", metavar="FILE", help="write every figure to FILE as JSON")
    args = ap.parse_args(argv)  # bad flags: exit 2
    if args.scenarios < 1 or args.deadline < 1 or args.repeats < 1:
        ap.error("--scenarios, --deadline and --repeats must be positive")
    if args.negmas_python and not (os.path.isfile(args.negmas_python) and os.access(args.negmas_python, os.X_OK)):
        ap.error(f"--negmas-python {args.negmas_python!r} is not an executable file")

    sp = specs()
    scenes = random_scenes(args.scenarios, args.seed, args.deadline)
    utils = [utilities_for(s) for s in scenes]
    analyses = [NegotiationAnalysis(u) for u in utils]
    n = args.scenarios * len(sp) ** 2
    print(
        f"{args.scenarios} scenes (seed {args.seed}), {len(sp)} strategies, {n:,} negotiations per framework "
        f"(both role orders, self-play included), deadline {args.deadline}; CPU time per negotiation, "
        f"the least of {args.repeats} repetitions",
        file=sys.stderr,
    )
    run_parley(scenes[:2], utils[:2], analyses[:2], sp, args.seed)  # warm-up
    parley = summarise(
        repeated(lambda: run_parley(scenes, utils, analyses, sp, args.seed), args.repeats), scenes, analyses, sp
    )
    negmas = version = None
    if args.negmas_python:
        print("running NegMAS in its own interpreter ...", file=sys.stderr)
        res = run_negmas(args.negmas_python, scenes, utils, sp, args.deadline, args.repeats)
        version = res["version"]
        negmas = summarise(res["games"], scenes, analyses, sp)
    print(
        f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}, numpy {np.__version__}"
        + (f", negmas {version}" if version else "")
    )
    print_table(parley, negmas, "negotiations/s per strategy seat (CPU time); quality per seat")
    if negmas is None:
        print(
            "No NegMAS comparison: install NegMAS in its own venv and pass its interpreter:\n"
            "  python3 -m venv /tmp/negmas-venv && /tmp/negmas-venv/bin/pip install negmas\n"
            "  python -m benchmarks.tournament_bench --negmas-python /tmp/negmas-venv/bin/python"
        )
    else:
        speed = ratios(parley, negmas)
        worst = min((r, k, how) for k, v in speed.items() if k != "all" for how, r in v.items())
        print(
            f"lowest speed ratio: {worst[0]:.1f}x ({worst[1]}, {worst[2].replace('_', '-')}); goal >= {GOAL:g}x "
            f"for every strategy, over its seats and in self-play: {'met' if worst[0] >= GOAL else 'NOT met'}"
        )
    if args.json:
        write_json(
            args.json,
            {
                "config": vars(args),
                "negmas_version": version,
                "parley": parley,
                "negmas": negmas,
                "ratios": ratios(parley, negmas) if negmas else None,
            },
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
