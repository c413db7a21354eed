"""End-to-end trust benchmark: the autopilot with Σ-Mem trust on vs off, in a real world.

Usage:  python -m benchmarks.trust_e2e_bench [--world worlds/harbor] [--seeds 50] [--quick] [--json FILE]

Each condition plays the same game seeds 0 .. N-1 (``--quick``: N = 10) with the
heuristic autopilot (``agents/autopilot.py``), world facts on (so the game writes
Σ-Mem from verified outcomes), no agent memory:

* ``off``      ``make_autopilot(seed, trust=None)``: no trust (the old behaviour);
* ``on``       ``trust=True``: reads the game's own Σ-Mem, which starts empty in
               every game and learns only from that game's verifications;
* ``carried``  ``trust=True``, and the game's Σ-Mem starts from the state the
               previous seed's game ended with (``get_state``/``set_state``, seeds
               played in order 0, 1, 2, ...): the player remembers who lied last
               time. The first game starts empty, so it equals ``on`` there.

Figures per condition (over the N games):

* win rate; turns to finish = the game turn when the last quest completed
  (``max_turns`` for a game not won): mean, median, p90 (numpy ``percentile``,
  linear interpolation);
* false leads followed: a *lead* is a (thing, place) pair that some NPC named
  when the autopilot asked where the thing is, and that the autopilot then took
  at least one step toward on the "follow a hint" branch of its navigation
  (``Autopilot.followed``). It is *false* when no fact of the world with that
  subject and object is true (the truth is read here, for scoring only; the
  autopilot never reads it). Reported: false leads followed per game (mean),
  steps walked toward false leads per game (mean), and the share of games with
  at least one;
* questions asked per game, and false claims heard per game (answers restating
  a fact that is false).

Ratios ``on/off`` and ``carried/off`` are given for the turn figures and the
false-lead figures. Everything is deterministic: the engine, NPCs and autopilot
draw from seeded ``numpy.random.Generator``s, so a seed list gives the same table
every time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.autopilot import make_autopilot
from benchmarks.lib.cli import write_json
from game.core.types import PLAYER, Verb
from game.play.session import Game
from game.play.worlds import load_world

CONDITIONS = ("off", "on", "carried")


def truth_index(spec: Any) -> tuple[set[tuple[str, str]], dict[tuple[str, str, str], bool]]:
    """(subject, object) pairs some true fact asserts; and (subject, relation, object) -> truth."""
    true_pairs = {(f.subject, f.object) for f in spec.facts.values() if f.true}
    truth = {(f.subject, f.relation, f.object): bool(f.true) for f in spec.facts.values()}
    return true_pairs, truth


def play(world: Any, seed: int, condition: str, carried: dict[str, Any] | None) -> tuple[dict[str, Any], Any]:
    """One game; returns its figures and the Σ-Mem state it ended with."""
    game = Game(world, seed=seed)
    if condition == "carried" and carried is not None:
        game.facts.sigma.set_state(carried)
    pilot = make_autopilot(seed, trust=game.facts.sigma if condition != "off" else None)
    asks = 0
    finished = None
    n_quests = len(game.spec.quests)
    while not game.engine.done:
        decision = pilot.act(game.engine.observe(PLAYER))
        action = decision.action
        if action is None:
            break
        asks += action.verb == Verb.ASK
        game.act(action)
        if finished is None and len(game.engine.state.quests_done) == n_quests:
            finished = game.engine.state.turn
    st = game.engine.state
    true_pairs, truth = truth_index(game.spec)
    false_leads = [(t, p, n) for t, p, n in pilot.followed if (t, p) not in true_pairs]
    false_claims = sum(1 for _, subj, rel, obj, _ in pilot.claims if truth.get((subj, rel, obj)) is False)
    fig = {
        "seed": seed,
        "won": bool(st.won),
        "turns": int(finished if (st.won and finished is not None) else game.spec.max_turns),
        "false_leads": len(false_leads),
        "false_lead_steps": int(sum(n for _, _, n in false_leads)),
        "leads": len(pilot.followed),
        "asks": int(asks),
        "false_claims": int(false_claims),
        "false_lead_list": [[t, p] for t, p, _ in false_leads],
    }
    return fig, game.facts.sigma.get_state()


def run(world_path: str, seeds: int) -> dict[str, Any]:
    world = load_world(world_path)
    out: dict[str, Any] = {"world": world.spec.id, "seeds": seeds, "conditions": {}}
    for cond in CONDITIONS:
        t0 = time.perf_counter()
        carried = None
        games = []
        for seed in range(seeds):
            fig, carried = play(world, seed, cond, carried)
            games.append(fig)
        turns = np.array([g["turns"] for g in games], dtype=np.float64)
        fl = np.array([g["false_leads"] for g in games], dtype=np.float64)
        out["conditions"][cond] = {
            "win_rate": float(np.mean([g["won"] for g in games])),
            "turns_mean": float(turns.mean()),
            "turns_median": float(np.median(turns)),
            "turns_p90": float(np.percentile(turns, 90)),
            "false_leads_mean": float(fl.mean()),
            "false_lead_steps_mean": float(np.mean([g["false_lead_steps"] for g in games])),
            "games_with_false_lead": float(np.mean(fl > 0)),
            "asks_mean": float(np.mean([g["asks"] for g in games])),
            "false_claims_mean": float(np.mean([g["false_claims"] for g in games])),
            "seconds": time.perf_counter() - t0,
            "games": games,
        }
        if cond == "carried":
            out["final_trust"] = {
                p: {k: round(v, 4) for k, v in row.items()} for p, row in _trust_table(carried).items()
            }
    base = out["conditions"]["off"]
    out["ratios"] = {}
    for cond in ("on", "carried"):
        c = out["conditions"][cond]
        out["ratios"][f"{cond}/off"] = {
            k: _ratio(c[k], base[k])
            for k in ("turns_mean", "turns_median", "turns_p90", "false_leads_mean", "false_lead_steps_mean")
        }
    return out


def _trust_table(state: dict[str, Any]) -> dict[str, dict[str, float]]:
    from memory.sigma import SigmaMem

    return SigmaMem.from_state(state).trust_table()


def _ratio(a: float, b: float) -> float | None:
    return None if b == 0 else a / b


def report(res: dict[str, Any]) -> str:
    lines = [f"world {res['world']}, seeds 0..{res['seeds'] - 1}", ""]
    head = (
        f"{'condition':<9} {'win':>5} {'turns mean':>10} {'median':>7} {'p90':>6} "
        f"{'false leads':>11} {'FL steps':>8} {'games w/ FL':>11} {'asks':>5} {'false claims':>12}"
    )
    lines += [head, "-" * len(head)]
    for cond in CONDITIONS:
        c = res["conditions"][cond]
        lines.append(
            f"{cond:<9} {c['win_rate']:>5.2f} {c['turns_mean']:>10.2f} {c['turns_median']:>7.1f} "
            f"{c['turns_p90']:>6.1f} {c['false_leads_mean']:>11.2f} {c['false_lead_steps_mean']:>8.2f} "
            f"{c['games_with_false_lead']:>11.2f} {c['asks_mean']:>5.2f} {c['false_claims_mean']:>12.2f}"
        )
    lines += ["", "ratios (condition / off; <1 is better)"]
    for name, r in res["ratios"].items():
        lines.append(f"  {name:<12} " + "  ".join(f"{k}={'n/a' if v is None else f'{v:.3f}'}" for k, v in r.items()))
    if "final_trust" in res:
        topics = sorted({t for row in res["final_trust"].values() for t in row})
        lines += [
            "",
            "carried Σ-Mem after the last game (score φᵀMφ per topic)",
            "  " + f"{'npc':<6}" + "".join(f"{t:>10}" for t in topics),
        ]
        for p, row in res["final_trust"].items():
            lines.append("  " + f"{p:<6}" + "".join(f"{row.get(t, 0.0):>10.3f}" for t in topics))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--world", default=str(Path(__file__).resolve().parents[1] / "worlds" / "harbor"))
    ap.add_argument("--seeds", type=int, default=50, help="game seeds 0..N-1 (default 50)")
    ap.add_argument("--quick", action="store_true", help="10 seeds")
    ap.add_argument("--json", metavar="FILE", help="write every figure to FILE as JSON")
    args = ap.parse_args(argv)
    seeds = 10 if args.quick else args.seeds
    if seeds < 1:
        ap.error("--seeds must be at least 1")
    res = run(args.world, seeds)
    print(report(res))
    if args.json:
        write_json(args.json, res)
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
