"""Round robin of the rule-based negotiators over generated multi-issue scenarios.

Usage:  python -m benchmarks.agents_bench [--scenarios 500] [--seed 0] [--deadline 20]
            [--agents boulware linear ...] [--json FILE]

Scenarios (seeded ``numpy.random.Generator``): 2-3 issues with 3-5 values each;
per party, issue weights ``U(0.1, 1.1)`` (normalised), value utilities ``U(0, 1)``
as authored, reservation ``U(0, 0.4)``; deadline 20 rounds. Party ``a`` always
moves first, so every ordered pairing (X as ``a``, Y as ``b``) and its swap
(Y as ``a``, X as ``b``) are both played: each pair plays each role and each
opening position on every scenario. Self-play is included.

Agents: every kind in ``agents.negotiators.KINDS`` with default parameters, plus
the opponent-model variants (``+om``: ``opponent_model=True, tolerance=0.05``) of
the time-based, tit-for-tat and aspiration kinds. ``random`` uses
``accept_prob=0.5`` and a seed derived from (``--seed``, scenario, seat).
Negotiators are stateless, so one instance per (scenario, agent, party) serves
all its games.

Figures (per *seat*: each game gives one figure to each side; self-play counts both):

* agreement rate;
* utility ``u``: own utility of the agreement, ``u = r`` (own reservation) on
  disagreement (walk-away or deadline);
* advantage ``(u - r) / (1 - r)``: share of the room above reservation that was won
  (0 on disagreement; 0 when ``r = 1``);
* distance to the Pareto frontier and to the Nash point (``OutcomeMetrics``):
  Euclidean in (u_a, u_b) space, to the nearest frontier point; on disagreement
  measured from the reservation point (so failing to agree is penalised); the
  Nash distance is left out when no outcome is individually rational;
* rounds to agreement: mean ``session.round`` over agreements only;
* speed: the negotiation loop (session moves, no metrics) is timed per game;
  negotiations/s over the seat's games and µs per move, also as a ratio to the
  **baseline**: the same loop driven by a scripted party that replays precomputed
  offers (the bare protocol cost per move), run in the same process.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from agents.negotiators import KINDS, from_kind
from benchmarks.lib.cli import write_json
from game.negotiation.metrics import NegotiationAnalysis
from game.negotiation.runner import Move, apply_move
from game.negotiation.session import Negotiation
from game.negotiation.utility import utilities_for
from game.world.spec import NegotiationScene

MODELLED = ("boulware", "linear", "conceder", "tit_for_tat", "aspiration")
SHORT = {
    "boulware": "Bw",
    "linear": "Li",
    "conceder": "Co",
    "hardliner": "Hd",
    "tit_for_tat": "Tt",
    "aspiration": "As",
    "random": "Rd",
}
T0 = time.perf_counter()


def log(msg: str, end: str = "\n") -> None:
    print(f"[{time.perf_counter() - T0:6.1f}s] {msg}", file=sys.stderr, end=end, flush=True)


def agent_specs(kinds: list[str], with_om: bool = True) -> list[tuple[str, str, dict]]:
    """(label, kind, params) for each contestant."""
    out = [(k, k, {}) for k in kinds]
    if with_om:
        out += [(f"{k}+om", k, {"opponent_model": True, "tolerance": 0.05}) for k in kinds if k in MODELLED]
    return out


def make_scenarios(n: int, seed: int, deadline: int) -> list[NegotiationScene]:
    from game.negotiation.generate import random_scenes

    return random_scenes(n, seed, deadline)


def build(kind: str, params: dict, utility, seed: int, scenario: int, seat: int):
    if kind == "random":
        params = {"seed": seed * 1_000_003 + scenario * 2 + seat, "accept_prob": 0.5, **params}
    return from_kind(kind, utility, **params)


def play(session: Negotiation, negs: dict) -> tuple[float, int]:
    """Run ``session`` to the end; return (seconds, moves)."""
    t = time.perf_counter()
    while session.is_open:
        p = session.turn
        apply_move(session, p, negs[p].respond(session, p))
    return time.perf_counter() - t, session.moves_made


class Scripted:
    """Baseline party: replays precomputed offers (never accepts)."""

    def __init__(self, moves: list[Move]):
        self.moves = moves

    def respond(self, session: Negotiation, party: str) -> Move:
        return self.moves[session.moves_made // 2 % len(self.moves)]


def bare_loop(scenes, utils, analyses) -> dict[str, float]:
    """Protocol cost alone: each party alternates between two fixed offers until the deadline."""
    total, moves = 0.0, 0
    for sc, u, an in zip(scenes, utils, analyses):
        space = u["a"].space
        ks = [0, space.size - 1]
        negs = {p: Scripted([Move.offer(space.terms(k)) for k in ks]) for p in ("a", "b")}
        s = Negotiation(sc, utilities=u, analysis=an)
        dt, n = play(s, negs)
        total += dt
        moves += n
    return {
        "games": len(scenes),
        "moves": moves,
        "seconds": total,
        "us_per_move": 1e6 * total / moves,
        "negotiations_per_s": len(scenes) / total,
    }


FIELDS = ("agree", "u_a", "u_b", "adv_a", "adv_b", "d_front", "d_nash", "rounds", "moves", "secs")


def round_robin(scenes, utils, analyses, specs, seed: int) -> dict[str, np.ndarray]:
    S, A = len(scenes), len(specs)
    R = {f: np.full((S, A, A), np.nan) for f in FIELDS}
    step = max(1, S // 20)
    for i, (sc, u, an) in enumerate(zip(scenes, utils, analyses)):
        negs = {
            p: [build(kind, params, u[p], seed, i, seat) for _, kind, params in specs]
            for seat, p in enumerate(("a", "b"))
        }
        ra, rb = u["a"].reservation, u["b"].reservation
        for x in range(A):
            for y in range(A):
                s = Negotiation(sc, utilities=u, analysis=an)
                dt, n = play(s, {"a": negs["a"][x], "b": negs["b"][y]})
                m = an.evaluate(s.agreement)
                ua, ub = m.utilities
                R["agree"][i, x, y] = m.agreement
                R["u_a"][i, x, y], R["u_b"][i, x, y] = ua, ub
                R["adv_a"][i, x, y] = 0.0 if ra >= 1 else (ua - ra) / (1 - ra)
                R["adv_b"][i, x, y] = 0.0 if rb >= 1 else (ub - rb) / (1 - rb)
                R["d_front"][i, x, y] = m.distance_to_frontier
                if m.distance_to_nash is not None:
                    R["d_nash"][i, x, y] = m.distance_to_nash
                if m.agreement:
                    R["rounds"][i, x, y] = s.round
                R["moves"][i, x, y], R["secs"][i, x, y] = n, dt
        if (i + 1) % step == 0 or i + 1 == S:
            log(f"round robin: {i + 1}/{S} scenarios ({(i + 1) * A * A:,} negotiations)")
    return R


def _nanmean(x) -> float:
    x = np.asarray(x, dtype=float)
    x = x[~np.isnan(x)]
    return float(x.mean()) if x.size else float("nan")


def per_kind(R, specs, base_us: float) -> dict[str, dict[str, float]]:
    out = {}
    for j, (label, _, _) in enumerate(specs):
        # seats: as a (row j, every column) and as b (every row, column j)
        seat = {
            "agree": np.concatenate([R["agree"][:, j, :].ravel(), R["agree"][:, :, j].ravel()]),
            "u": np.concatenate([R["u_a"][:, j, :].ravel(), R["u_b"][:, :, j].ravel()]),
            "adv": np.concatenate([R["adv_a"][:, j, :].ravel(), R["adv_b"][:, :, j].ravel()]),
            "d_front": np.concatenate([R["d_front"][:, j, :].ravel(), R["d_front"][:, :, j].ravel()]),
            "d_nash": np.concatenate([R["d_nash"][:, j, :].ravel(), R["d_nash"][:, :, j].ravel()]),
            "rounds": np.concatenate([R["rounds"][:, j, :].ravel(), R["rounds"][:, :, j].ravel()]),
            "secs": np.concatenate([R["secs"][:, j, :].ravel(), R["secs"][:, :, j].ravel()]),
            "moves": np.concatenate([R["moves"][:, j, :].ravel(), R["moves"][:, :, j].ravel()]),
        }
        us_move = 1e6 * seat["secs"].sum() / seat["moves"].sum()
        out[label] = {
            "seats": int(seat["agree"].size),
            "agreement_rate": _nanmean(seat["agree"]),
            "mean_utility": _nanmean(seat["u"]),
            "mean_advantage": _nanmean(seat["adv"]),
            "distance_to_frontier": _nanmean(seat["d_front"]),
            "distance_to_nash": _nanmean(seat["d_nash"]),
            "rounds_to_agreement": _nanmean(seat["rounds"]),
            "negotiations_per_s": seat["secs"].size / seat["secs"].sum(),
            "us_per_move": us_move,
            "cost_vs_bare_loop": us_move / base_us,
        }
    return out


def per_pairing(R, specs) -> dict[str, dict[str, float]]:
    out = {}
    for x, (lx, _, _) in enumerate(specs):
        for y, (ly, _, _) in enumerate(specs):
            cell = {f: R[f][:, x, y] for f in FIELDS}
            out[f"{lx} vs {ly}"] = {
                "first": lx,
                "second": ly,
                "agreement_rate": _nanmean(cell["agree"]),
                "mean_utility_first": _nanmean(cell["u_a"]),
                "mean_utility_second": _nanmean(cell["u_b"]),
                "mean_advantage_first": _nanmean(cell["adv_a"]),
                "mean_advantage_second": _nanmean(cell["adv_b"]),
                "distance_to_frontier": _nanmean(cell["d_front"]),
                "distance_to_nash": _nanmean(cell["d_nash"]),
                "rounds_to_agreement": _nanmean(cell["rounds"]),
                "negotiations_per_s": cell["secs"].size / cell["secs"].sum(),
            }
    return out


def short(label: str) -> str:
    kind, _, om = label.partition("+")
    return SHORT.get(kind, kind[:2]) + ("+" if om else "")


def fmt(x: float, spec: str) -> str:
    return "-" if x != x else format(x, spec)


def kind_table(kinds: dict[str, dict[str, float]]) -> str:
    cols = [
        ("kind", "", 15),
        ("agree", ".1%", 7),
        ("utility", ".3f", 8),
        ("advant.", ".3f", 8),
        ("d_pareto", ".3f", 9),
        ("d_nash", ".3f", 7),
        ("rounds", ".1f", 7),
        ("neg/s", ",.0f", 8),
        ("us/move", ".1f", 8),
        ("x bare", ".1f", 7),
    ]
    keys = [
        None,
        "agreement_rate",
        "mean_utility",
        "mean_advantage",
        "distance_to_frontier",
        "distance_to_nash",
        "rounds_to_agreement",
        "negotiations_per_s",
        "us_per_move",
        "cost_vs_bare_loop",
    ]
    head = " ".join(f"{name:<{w}}" if i == 0 else f"{name:>{w}}" for i, (name, _, w) in enumerate(cols))
    lines = [head, "-" * len(head)]
    for label, f in kinds.items():
        cells = [f"{label:<{cols[0][2]}}"]
        cells += [f"{fmt(f[k], spec):>{w}}" for k, (_, spec, w) in zip(keys[1:], cols[1:])]
        lines.append(" ".join(cells))
    return "\n".join(lines)


def matrix(R, specs, field: str = "agree") -> tuple[str, list[list[float]]]:
    labels = [short(lb) for lb, _, _ in specs]
    M = np.nanmean(R[field], axis=0)
    w = 5
    lines = ["first \\ second " + " ".join(f"{lb:>{w}}" for lb in labels)]
    for x, (lb, _, _) in enumerate(specs):
        lines.append(f"{lb:<15}" + " ".join(f"{100 * M[x, y]:>{w}.0f}" for y in range(len(specs))))
    legend = ", ".join(f"{short(lb)}={lb}" for lb, _, _ in specs)
    return "\n".join(lines) + f"\n(percent of scenarios ending in agreement; {legend})", M.tolist()


def client_overhead() -> dict | None:
    """Run ``benchmarks.client_overhead.measure()``: the LLM client's overhead on a local server."""
    try:
        from benchmarks.client_overhead import measure

        log("running client_overhead.measure()")
        figures = measure()
    except Exception as e:  # an optional measurement: report, do not crash the bench
        print(f"\nclient overhead: failed ({type(e).__name__}: {e}); skipped")
        return {"error": f"{type(e).__name__}: {e}"}
    print("\nclient overhead (benchmarks.client_overhead):")
    if isinstance(figures, dict):
        width = max((len(str(k)) for k in figures), default=0)
        for k, v in figures.items():
            print(f"  {str(k):<{width}}  {v:,.4g}" if isinstance(v, float) else f"  {str(k):<{width}}  {v}")
    else:
        print(f"  {figures!r}")
    return figures if isinstance(figures, dict) else {"result": repr(figures)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenarios", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--deadline", type=int, default=20)
    ap.add_argument("--agents", nargs="+", default=list(KINDS), choices=list(KINDS), metavar="KIND")
    ap.add_argument("--no-om", action="store_true", help="leave out the opponent-model variants")
    ap.add_argument("--json", metavar="FILE", help="write every figure to FILE as JSON")
    args = ap.parse_args(argv)
    if args.scenarios < 1 or args.deadline < 1:
        ap.error("--scenarios and --deadline must be positive")

    specs = agent_specs(args.agents, not args.no_om)
    log(f"generating {args.scenarios} scenarios (seed {args.seed})")
    scenes = make_scenarios(args.scenarios, args.seed, args.deadline)
    utils = [utilities_for(s) for s in scenes]
    analyses = [NegotiationAnalysis(u) for u in utils]
    sizes = np.array([a.space.size for a in analyses])

    log("baseline: bare session loop")
    bare_loop(scenes[:20], utils[:20], analyses[:20])  # warm-up
    base = bare_loop(scenes, utils, analyses)

    n_games = args.scenarios * len(specs) ** 2
    log(f"round robin: {len(specs)} agents, {n_games:,} negotiations")
    t = time.perf_counter()
    R = round_robin(scenes, utils, analyses, specs, args.seed)
    wall = time.perf_counter() - t

    kinds = per_kind(R, specs, base["us_per_move"])
    pairs = per_pairing(R, specs)
    rr = pairs["random vs random"] if "random" in args.agents else None

    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}, numpy {np.__version__}")
    print(
        f"scenarios: {args.scenarios} (seed {args.seed}), 2-3 issues x 3-5 values "
        f"({int(sizes.min())}-{int(sizes.max())} outcomes, mean {sizes.mean():.0f}), deadline {args.deadline}; "
        f"{len(specs)} agents, {n_games:,} negotiations (both roles, self-play included) in {wall:.1f} s "
        f"({n_games / wall:,.0f}/s incl. metrics)"
    )
    print(
        f"baseline, bare session loop (scripted offers, no decisions): {base['us_per_move']:.1f} us/move, "
        f"{base['negotiations_per_s']:,.0f} negotiations/s of {2 * args.deadline} moves"
    )
    if rr is not None:
        print(
            f"baseline, random vs random: {rr['negotiations_per_s']:,.0f} negotiations/s, "
            f"agreement {rr['agreement_rate']:.1%}, d_pareto {rr['distance_to_frontier']:.3f}"
        )
    print(
        "\nper kind (per seat; u = r on disagreement; advantage = (u - r)/(1 - r); distances from the "
        "reservation point on disagreement; rounds over agreements only):"
    )
    print(kind_table(kinds))
    text, M = matrix(R, specs)
    print("\nagreement rate by pairing (row moves first):")
    print(text)

    co = client_overhead()
    if args.json:
        out = {
            "config": {
                "scenarios": args.scenarios,
                "seed": args.seed,
                "deadline": args.deadline,
                "agents": [{"label": lb, "kind": k, "params": p} for lb, k, p in specs],
                "negotiations": n_games,
                "seconds": wall,
            },
            "baseline": {"bare_loop": base, "random_vs_random": rr},
            "kinds": kinds,
            "pairings": pairs,
            "agreement_matrix": {"labels": [lb for lb, _, _ in specs], "rows_first": M},
            "client_overhead": co,
        }
        write_json(args.json, out)
        log(f"wrote {args.json}")
    log(f"done in {time.perf_counter() - T0:.1f} s")


if __name__ == "__main__":
    main()
