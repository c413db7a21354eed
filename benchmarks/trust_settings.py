"""Σ-Mem against tuned beta reputations where cross-topic structure should help.

Usage:  python -m benchmarks.trust_settings [--seeds 100-119] [--tune-seeds 0-9] [--quick] [--json FILE]

Three settings, 12 topics, every verified round judges every NPC on one random topic:

* **transfer**: honesty correlated across topics, few judgements per topic. 20 NPCs, 40 % liars;
  an NPC's rate of being right on topic k is ``sigmoid(logit(b) + N(0, 0.75))`` with base rate
  ``b ~ U(0.7, 0.95)`` (honest) or ``U(0.1, 0.35)`` (liar). A (NPC, topic) pair is lying when its
  rate is below 0.5. AUROC of the scores, honest vs lying pairs, after 5 / 10 / 20 / 40 judged
  claims per NPC (20 claims: under 2 per topic).
* **sleepers**: 10 NPCs right w.p. U(0.75, 0.95) per topic; 2 of them right w.p. 0.9 for 120
  rounds, then wrong w.p. 0.9 on every topic. A source is *flagged* when it scores below neutral
  (Σ-Mem ``s < 0``, beta trust ``< 0.5``) on at least half the topics. Lies (judged wrong claims
  after the turn) until a sleeper is flagged (median, censored runs count as never), the share
  flagged within 80 lies, and the share of steady NPCs ever flagged (false flags).
* **collusion**: 12 NPCs, 4 colluders who on each round lie together w.p. 0.45 (else right w.p.
  0.85: right 47 % of the time); the others right w.p. U(0.65, 0.95) per topic. AUROC, colluders vs the others, after
  5 / 10 / 20 / 40 claims.

Methods, each tuned per setting on the tune seeds (0-9) and reported on held-out seeds (100-119):
Σ-Mem (``SigmaMem.for_world``: γ × ``shared`` ρ, the share of every topic's φ on one dimension
all topics share), beta per (NPC, topic) (forgetting λ × prior strength × clock: every verified
event, or only when that (NPC, topic) is judged), beta per NPC (λ × prior strength), and the
game's Σ-Mem as ``for_world`` builds it (not tuned here). Objective: AUROC after 20 claims
(transfer, collusion); for sleepers the median lies to flag, among configurations that flag at
most 5 % of steady NPCs (ties: more flagged within 80 lies). Intervals: 95 % percentile
bootstrap over seeds (sleeper runs for the medians); differences paired.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np

from benchmarks.lib.cli import seed_list, write_json
from benchmarks.lib.stats import auroc, mean_ci, paired_ci, resample_ci
from benchmarks.trust_bench import TOPICS, KeyedBeta, fmt_ci, peer_ids, rng_for, table
from memory.reputation import BetaReputation
from memory.sigma import SigmaMem

K = len(TOPICS)
CHECKS = [5, 10, 20, 40]
DECAYS = ("topic", "event")
SIGMA_GAMMAS, SHARES = (0.8, 0.9, 0.95, 0.98), (0.0, 0.25, 0.5, 0.75, 0.9)
LAMS, PRIORS = (0.8, 0.9, 0.95, 0.98, 1.0), (0.5, 1.0, 2.0)
TURN, MAX_LIES, WITHIN = 120, 120, 80
NEVER = 10**6  # a sleeper never flagged in the run
FALSE_FLAGS = 0.05
LIE_TOGETHER = 0.45
GAME = "Σ-Mem (game)"
BEFORE = "Σ-Mem (game before pooling: ρ=0, γ=0.95)"
FAMILIES = ("Σ-Mem", "beta (NPC, topic)", "beta (NPC)")
Factory = Callable[[list[str], list[str]], object]


def sigma_f(gamma: float | None = None, shared: float | None = None, decay: str | None = None) -> Factory:
    kw = {k: v for k, v in (("gamma", gamma), ("shared", shared), ("decay", decay)) if v is not None}
    return lambda peers, topics: SigmaMem.for_world(peers, topics, **kw)


def beta_f(clock: str, lam: float, prior: float, topic_aware: bool = True) -> Factory:
    if topic_aware and clock == "key":
        return lambda peers, topics: KeyedBeta(peers, topics, lam=lam, prior=prior)
    return lambda peers, topics: BetaReputation(peers, topics, lam=lam, prior=prior, topic_aware=topic_aware)


def grid() -> dict[str, Factory]:
    out: dict[str, Factory] = {}
    for decay in DECAYS:
        for g in SIGMA_GAMMAS:
            for rho in SHARES:
                out[f"Σ-Mem {decay} γ={g} ρ={rho}"] = sigma_f(g, rho, decay)
    for clock in ("event", "key"):
        for lam in LAMS:
            for a in PRIORS:
                out[f"beta (NPC, topic) {clock} λ={lam} a={a}"] = beta_f(clock, lam, a)
    for lam in LAMS:
        for a in PRIORS:
            out[f"beta (NPC) λ={lam} a={a}"] = beta_f("event", lam, a, topic_aware=False)
    return out


def score_table(mem, peers: list[str]) -> np.ndarray:
    """(P, K) scores of every NPC on every topic."""
    if isinstance(mem, SigmaMem):
        phi = np.stack([mem.phi(tp) for tp in TOPICS])
        M = np.stack([mem.M(p) for p in peers])
        return np.einsum("ki,pij,kj->pk", phi, M, phi)
    return np.stack([mem.scores(tp, peers) for tp in TOPICS], axis=1)


def neutral(mem) -> float:
    return 0.5 if isinstance(mem, BetaReputation) else 0.0


def write_all(mems: dict, k: int, peers: list[str], right: np.ndarray) -> None:
    outcomes = dict(zip(peers, np.where(right, 1, -1).tolist()))
    for m in mems.values():
        m.write(TOPICS[k], outcomes)


# --------------------------------------------------------------------------- settings


def transfer_run(seed: int, factories: dict[str, Factory], P: int = 20) -> dict[str, dict[int, float]]:
    rng = rng_for(seed, 21)
    liar = rng.random(P) < 0.4
    base = np.where(liar, rng.uniform(0.1, 0.35, P), rng.uniform(0.7, 0.95, P))
    logit = np.log(base / (1 - base))[:, None] + rng.normal(0.0, 0.75, (P, K))
    rate = 1.0 / (1.0 + np.exp(-logit))
    honest = (rate >= 0.5).ravel()
    return _auroc_stream(rng, factories, peer_ids(P), lambda k: rng.random(P) < rate[:, k], honest)


def collusion_run(seed: int, factories: dict[str, Factory], P: int = 12, group: int = 4) -> dict[str, dict[int, float]]:
    rng = rng_for(seed, 23)
    colluder = np.zeros(P, dtype=bool)
    colluder[rng.permutation(P)[:group]] = True
    rate = rng.uniform(0.65, 0.95, (P, K))

    def right(k: int) -> np.ndarray:
        out = rng.random(P) < np.where(colluder, 0.85, rate[:, k])
        if rng.random() < LIE_TOGETHER:
            out[colluder] = False  # the group lies together
        return out

    honest = np.repeat(~colluder, K)
    return _auroc_stream(rng, factories, peer_ids(P), right, honest)


def _auroc_stream(rng, factories, peers, right, honest) -> dict[str, dict[int, float]]:
    """Verified rounds on random topics, every NPC judged; AUROC of the (P, K) scores at the checkpoints."""
    mems = {name: f(peers, TOPICS) for name, f in factories.items()}
    out: dict[str, dict[int, float]] = {name: {} for name in mems}
    for n in range(1, max(CHECKS) + 1):
        k = int(rng.integers(K))
        write_all(mems, k, peers, right(k))
        if n in CHECKS:
            for name, m in mems.items():
                s = score_table(m, peers).ravel()
                out[name][n] = auroc(s[honest], s[~honest])
    return out


def sleeper_run(seed: int, factories: dict[str, Factory], P: int = 10, n_sleepers: int = 2) -> dict[str, dict]:
    """Per method: the lies each sleeper had told when first flagged after its turn (NEVER if not in the
    run), and for each steady NPC whether it was flagged at any round after the turn (a false flag)."""
    rng = rng_for(seed, 22)
    peers = peer_ids(P)
    rate = rng.uniform(0.75, 0.95, (P, K))
    sleeper = np.zeros(P, dtype=bool)
    sleeper[rng.permutation(P)[:n_sleepers]] = True
    rate[sleeper] = 0.9
    mems = {name: f(peers, TOPICS) for name, f in factories.items()}
    lies = np.zeros(P, dtype=int)
    caught = {name: np.full(P, NEVER) for name in mems}
    false = {name: np.zeros(P, dtype=bool) for name in mems}
    r = 0
    while lies[sleeper].min() < MAX_LIES:
        if r == TURN:
            rate[sleeper] = 0.1
        k = int(rng.integers(K))
        right = rng.random(P) < rate[:, k]
        turned = sleeper & (r >= TURN)
        lies += turned & ~right
        write_all(mems, k, peers, right)
        r += 1
        for name, m in mems.items():
            below = (score_table(m, peers) < neutral(m)).mean(axis=1) >= 0.5
            if r > TURN:  # the detection window: an NPC still honest flagged there is a false flag
                false[name] |= below & ~sleeper
            new = below & turned & (caught[name] == NEVER)
            caught[name][new] = lies[new]
    return {
        name: {"lies": [int(x) for x in caught[name][sleeper]], "false_flags": false[name][~sleeper].tolist()}
        for name in mems
    }


# --------------------------------------------------------------------------- tuning and reporting

SETTINGS = {"transfer": transfer_run, "collusion": collusion_run}


def run(seeds: list[int], factories: dict[str, Factory]) -> dict:
    """{setting: {method: per-seed results}}: AUROC {n: [per seed]}; sleepers {lies: [per run], false_flags: [...]}."""
    out: dict = {}
    for setting, fn in SETTINGS.items():
        d = out[setting] = {name: {n: [] for n in CHECKS} for name in factories}
        for seed in seeds:
            for name, res in fn(seed, factories).items():
                for n, v in res.items():
                    d[name][n].append(v)
    d = out["sleepers"] = {name: {"lies": [], "false_flags": []} for name in factories}
    for seed in seeds:
        for name, res in sleeper_run(seed, factories).items():
            d[name]["lies"] += res["lies"]
            d[name]["false_flags"] += res["false_flags"]
    return out


def sleeper_key(d: dict) -> tuple:
    """Sort key, best first: admissible (≤ 5 % false flags), then fewer median lies, then more caught within 80."""
    lies = np.asarray(d["lies"])
    return (np.mean(d["false_flags"]) > FALSE_FLAGS, float(np.median(lies)), -float(np.mean(lies <= WITHIN)))


def tune(seeds: list[int]) -> dict:
    """The best configuration of each family in each setting, on the tune seeds."""
    res = run(seeds, grid())
    best: dict = {}
    for setting, d in res.items():
        for fam in FAMILIES:
            names = [n for n in d if n.startswith(fam + " ")]
            if setting == "sleepers":
                best.setdefault(setting, {})[fam] = min(names, key=lambda n: sleeper_key(d[n]))
            else:
                best.setdefault(setting, {})[fam] = max(names, key=lambda n: float(np.mean(d[n][20])))
    return {"best": best, "results": res, "sigma": sigma_ranks(res)}


def sigma_ranks(res: dict) -> dict[str, dict]:
    """Each Σ-Mem configuration's figures and its rank in every setting (1 = best) on the tune seeds."""
    names = [n for n in res["transfer"] if n.startswith("Σ-Mem ")]
    out = {
        n: {
            "transfer": float(np.mean(res["transfer"][n][20])),
            "collusion": float(np.mean(res["collusion"][n][20])),
            "sleeper_lies": float(np.median(res["sleepers"][n]["lies"])),
            "false_flags": float(np.mean(res["sleepers"][n]["false_flags"])),
        }
        for n in names
    }
    for setting in ("transfer", "collusion"):
        for i, n in enumerate(sorted(names, key=lambda n: -out[n][setting])):
            out[n][f"rank_{setting}"] = i + 1
    for i, n in enumerate(sorted(names, key=lambda n: sleeper_key(res["sleepers"][n]))):
        out[n]["rank_sleepers"] = i + 1
    return out


def game_choice(tuned: dict) -> dict:
    """The rule the game's Σ-Mem (``SigmaMem.for_world``) was set by, on the tune seeds: among the
    ``decay="topic"`` configurations (the game's decay: trust still builds for an NPC judged rarely),
    those within the goals against the tuned per-(NPC, topic) beta (AUROC after 20 claims ≥ its + 0.02
    in transfer and collusion; sleepers flagged in a median ≤ its, with ≤ 5 % false flags); of those
    the least pooling (smallest ρ: pooling drags a liar on some topics down on the others), then the
    best mean AUROC."""
    res, best, beta = tuned["results"], tuned["best"], "beta (NPC, topic)"
    bar = {st: float(np.mean(res[st][best[st][beta]][20])) + 0.02 for st in ("transfer", "collusion")}
    lies_bar = float(np.median(res["sleepers"][best["sleepers"][beta]]["lies"]))
    ok = [
        n
        for n, d in tuned["sigma"].items()
        if n.startswith("Σ-Mem topic ")
        and d["transfer"] >= bar["transfer"]
        and d["collusion"] >= bar["collusion"]
        and d["sleeper_lies"] <= lies_bar
        and d["false_flags"] <= FALSE_FLAGS
    ]
    key = lambda n: (float(n.split("ρ=")[1]), -(tuned["sigma"][n]["transfer"] + tuned["sigma"][n]["collusion"]))  # noqa: E731
    choice = min(ok, key=key) if ok else None
    cfg = SigmaMem.for_world().config
    game = f"Σ-Mem {cfg.decay} γ={cfg.gamma} ρ={cfg.shared}"
    return {"choice": choice, "game": game, "agrees": choice == game, "candidates": sorted(ok, key=key)}


def factory_of(name: str) -> Factory:
    if name.startswith("Σ-Mem"):
        return sigma_f(float(name.split("γ=")[1].split()[0]), float(name.split("ρ=")[1]), name.split()[1])
    lam, a = float(name.split("λ=")[1].split()[0]), float(name.split("a=")[1])
    if name.startswith("beta (NPC, topic)"):
        return beta_f("key" if " key " in name else "event", lam, a)
    return beta_f("event", lam, a, topic_aware=False)


def held_out(seeds: list[int], best: dict) -> dict:
    """Every setting on the held-out seeds with the game's Σ-Mem and each family's tuned configuration."""
    out: dict = {}
    for setting in ("transfer", "collusion", "sleepers"):
        factories = {GAME: sigma_f()} | {
            f"{fam} [{best[setting][fam]}]": factory_of(best[setting][fam]) for fam in FAMILIES
        }
        factories[BEFORE] = sigma_f(0.95, 0.0, "topic")
        part = run(seeds, factories)
        out[setting] = part[setting]
    return out


def median_ci(lies) -> tuple[float, float, float]:
    x = np.asarray(lies, dtype=np.float64)
    lo, hi = resample_ci((x,), lambda a, axis=-1: np.median(a, axis=axis))
    return float(np.median(x)), float(lo), float(hi)


def median_diff(a, b) -> tuple[float, float, float]:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    stat = lambda u, v, axis=-1: np.median(u, axis=axis) - np.median(v, axis=axis)  # noqa: E731
    lo, hi = resample_ci((x, y), stat)
    return float(np.median(x) - np.median(y)), float(lo), float(hi)


def lies_cell(est: tuple[float, float, float], signed: bool = False) -> str:
    cell = lambda v: ("never" if not signed else "n/a") if abs(v) >= NEVER / 2 else f"{v:{'+' if signed else ''}.0f}"  # noqa: E731
    est = tuple(v + 0.0 for v in est)  # no "-0"
    return f"{cell(est[0])} [{cell(est[1])}, {cell(est[2])}]"


def rows_auroc(d: dict) -> list[list[str]]:
    names = list(d)
    rows = [[n] + [fmt_ci(mean_ci(d[n][c])) for c in CHECKS] for n in names]
    for other in names[2:4]:
        for mine in names[:2]:
            diff = paired_ci(d[mine][20], d[other][20])
            rows.append(
                [f"{mine.split(' [')[0]} − {other.split(' [')[0]} (20 claims)", "", "", fmt_ci(diff, signed=True), ""]
            )
    return rows


def rows_sleepers(d: dict) -> list[list[str]]:
    names = list(d)
    rows = []
    for n in names:
        lies = np.asarray(d[n]["lies"])
        rows.append(
            [
                n,
                lies_cell(median_ci(lies)),
                fmt_ci(mean_ci((lies <= WITHIN).astype(float)), 100, 0),
                fmt_ci(mean_ci(np.asarray(d[n]["false_flags"], dtype=float)), 100, 1),
            ]
        )
    for other in names[2:4]:
        for mine in names[:2]:
            rows.append(
                [
                    f"{mine.split(' [')[0]} − {other.split(' [')[0]}",
                    lies_cell(median_diff(d[mine]["lies"], d[other]["lies"]), True),
                    "",
                    "",
                ]
            )
    return rows


def report(res: dict, seeds: list[int]) -> dict[str, str]:
    span = f"held-out seeds {seeds[0]}-{seeds[-1]}"
    out = {
        "transfer": table(
            f"T1. Transfer (honesty correlated across topics): AUROC after n judged claims per NPC, {span}",
            ["method \\ claims"] + [str(c) for c in CHECKS],
            rows_auroc(res["transfer"]),
        ),
        "collusion": table(
            f"T2. Colluders (4 of 12 lie together): AUROC after n judged claims per NPC, {span}",
            ["method \\ claims"] + [str(c) for c in CHECKS],
            rows_auroc(res["collusion"]),
        ),
        "sleepers": table(
            f"T3. Sleepers (2 of 10 turn liar after {TURN} rounds; {K} topics): lies until flagged, {span}",
            ["method", "median lies [95% CI]", f"% flagged within {WITHIN} lies", "% honest NPCs flagged"],
            rows_sleepers(res["sleepers"]),
        ),
    }
    for text in out.values():
        print(text)
    return out


def goals(res: dict) -> list[tuple[str, str, str]]:
    """(goal, status, figures) for the game's Σ-Mem against each tuned beta, on the held-out seeds."""
    out = []
    for setting in ("transfer", "collusion"):
        d = res[setting]
        for other in list(d)[2:4]:
            diff = paired_ci(d[GAME][20], d[other][20])
            fam = other.split(" [")[0]
            status = "met" if diff[0] >= 0.02 else "NOT met"
            out.append(
                (f"{setting}: {GAME} AUROC after 20 claims ≥ tuned {fam} + 0.02", status, fmt_ci(diff, signed=True))
            )
    d = res["sleepers"]
    for other in list(d)[2:4]:
        fam = other.split(" [")[0]
        mine, theirs = median_ci(d[GAME]["lies"]), median_ci(d[other]["lies"])
        within = [float(np.mean(np.asarray(d[n]["lies"]) <= WITHIN)) for n in (GAME, other)]
        out.append(
            (
                f"sleepers: {GAME} flags in a median ≤ tuned {fam}'s lies",
                "met" if mine[0] <= theirs[0] else "NOT met",
                f"{lies_cell(mine)} vs {lies_cell(theirs)}; within {WITHIN} lies {100 * within[0]:.0f}% vs "
                f"{100 * within[1]:.0f}%",
            )
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=seed_list, default="100-119", help="held-out seeds (default 100-119)")
    ap.add_argument("--tune-seeds", type=seed_list, default="0-9", help="tune seeds (default 0-9)")
    ap.add_argument("--quick", action="store_true", help="3 tune and 5 held-out seeds (a smoke run)")
    ap.add_argument("--json", metavar="FILE", help="write every per-seed figure to FILE as JSON")
    args = ap.parse_args(argv)
    res = measure(args.seeds, args.tune_seeds, args.quick, ap)
    if args.json:
        write_json(args.json, res)
    return 0


def measure(seeds: list[int], tune_seeds: list[int], quick: bool = False, ap=None) -> dict:
    """Tune on ``tune_seeds``, report on ``seeds``; prints the tables and returns every figure."""
    if set(seeds) & set(tune_seeds):
        msg = "--seeds and --tune-seeds overlap: held-out figures must come from seeds tuning never saw"
        if ap is not None:
            ap.error(msg)
        raise ValueError(msg)
    if quick:
        seeds, tune_seeds = seeds[:5], tune_seeds[:3]
    t0 = time.perf_counter()
    tuned = tune(tune_seeds)
    print(f"tuned on seeds {tune_seeds[0]}-{tune_seeds[-1]} ({time.perf_counter() - t0:.0f} s):", file=sys.stderr)
    for setting, b in tuned["best"].items():
        print(f"  {setting}: " + "; ".join(b.values()))
    choice = game_choice(tuned)
    print(
        f"  game: for_world builds {choice['game']}; the rule picks {choice['choice']} "
        f"({'the same' if choice['agrees'] else 'DIFFERENT'}; candidates: {', '.join(choice['candidates']) or 'none'})"
    )
    res = held_out(seeds, tuned["best"])
    tables = report(res, seeds)
    res_goals = [{"goal": g, "status": st, "figures": f} for g, st, f in goals(res)]
    tables["goals"] = table(
        "T4. Goals (held-out seeds)",
        ["goal", "status", "figures"],
        [[g["goal"], g["status"], g["figures"]] for g in res_goals],
    )
    print(tables["goals"])
    return {
        "seeds": seeds,
        "tune_seeds": tune_seeds,
        "best": tuned["best"],
        "sigma_grid": tuned["sigma"],
        "game_choice": choice,
        "held_out": res,
        "goals": res_goals,
        "tables": tables,
    }


if __name__ == "__main__":
    raise SystemExit(main())
