"""Trust benchmark: Σ-Mem (memory/sigma.py) against the strongest beta-reputation baseline.

Usage:  python -m benchmarks.trust_bench [--seeds 100-119] [--tune-seeds 0-9] [--quick]
                                         [--json FILE] [--embedder hash|minilm] [--out PAGE]

It first runs benchmarks/trust_settings.py (transfer, sleepers, colluders: where Σ-Mem's
cross-topic structure should help), then the sections below; ``--out`` writes the docs page
(docs/benchmarks/trust_bench.md) from the run (benchmarks/trust_page.py).

Each seed is one independent world (its own NPC pool, liars and rounds), drawn from
seeded ``numpy.random.Generator``s; every figure is a mean over seeds with a 95 %
bootstrap confidence interval over seeds (2,000 resamples, seeded), and Σ-Mem − beta
differences are paired per seed. The beta baseline's forgetting is tuned on the tune
seeds (default 0-9), and so is a "Σ-Mem (tuned)" reference (decay rule × γ); every
table is then measured on the held-out seeds (default 100-119), which tuning never sees.

Setting (all sections): K = 12 topics; in a round one random topic is asked and the NPCs
answer; only 30 % of rounds are verified (the truth seen and every NPC's outcome
written); honest NPCs are right w.p. U(0.7, 0.95) on each topic (0.6-0.9 in decisions),
liars w.p. U(0.05, 0.3). "n claims" = n claims per NPC and topic (n·K rounds).

Methods:
  Σ-Mem (game)        SigmaMem.for_world defaults: declared topics' own parts orthogonal, half
                      of every φ on one dimension all topics share (ρ = 0.5; r = 12 + 16 spare
                      + 1), decay along the judged topic (γ = 0.9 per judgement of that NPC on
                      that topic), M-Vote falling back to M-Route. Set by the rule in
                      benchmarks/trust_settings.py, not tuned here; section 0 shows where it sits.
  Σ-Mem (game), majority fallback   the same memory, M-Vote falling back to the majority.
  Σ-Mem (tuned)       for_world with the decay rule and γ that won on the tune seeds.
  Σ-Mem (old default) SigmaMem(): hashed projection, r = 16, per-event decay, M-Vote
                      falling back to the majority (the reference the finding was about).
  beta (NPC, topic)   decayed success / failure counts per (NPC, topic), Beta-mean trust,
                      log-odds weighted vote; forgetting λ and its clock (every verified event,
                      or only when that (NPC, topic) is judged) tuned on the tune seeds.
  beta (NPC)          topic-blind counts (λ tuned the same way).
  majority vote; oracle (true log-odds weights, decisions only).

Sections:
 0. Tuning (tune seeds): the grid of beta forgetting (clock × λ) and of Σ-Mem (decay × γ);
    objective = mean AUROC over the checkpoints of 2 + mean accuracy over CF@30-90 of 3.
 1. Theorem 1 (aligned events, one topic): simulated mean / sd of φᵀMφ vs theory (≤ 5 %).
 2. Liar identification: P = 24 NPCs: 10 honest, 4 uniform liars, 6 topic-specific liars
    (lie on 1-3 topics), 4 sleepers (honest, then liars on every topic from a random round
    in the middle half). AUROC of the score, honest vs lying (NPC, topic) pairs (a sleeper's
    pairs count as lying once it has turned), after 5/10/20/40 claims; and the share of
    topic-specific liars' truthful (NPC, topic) pairs scoring below the honest median on
    that topic (50 % = unbiased; pooling evidence across topics pushes it up).
 3. Decisions: P = 10 NPCs, 4 options; CF@x: on each topic a random x·P of the NPCs lie
    and collude (all give the same wrong option). 40 claims per NPC and topic (480 rounds);
    accuracy over all rounds and over the second half.
 4. Sleeper detection: P = 10, one NPC (right w.p. 0.9) turns liar on every topic at round
    240; rounds until its score is below the honest median on at least half the topics
    (and below neutral, s < 0 / trust < 0.5, on at least half). Censored at 480 rounds.
 5. Transfer to unseen topics: 4 families × 4 topics; 3 per family declared and trained, 1
    per family never written; P = 20 (8 honest, 12 lie on one family, 3 per family).
    AUROC on the unseen (NPC, topic) pairs after 5/10/20 claims on the declared topics,
    and M-Vote accuracy on unseen topics (memory frozen after 20 claims) at CF@50/70 with
    liars colluding per family. With ``--embedder minilm`` Σ-Mem also runs on MiniLM
    embeddings (hash embeddings only see shared words).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks.lib.cli import seed_list, write_json
from benchmarks.lib.stats import auroc, mean_ci, paired_ci
from memory.peers import weighted_choice
from memory.reputation import BetaReputation
from memory.sigma import SigmaMem

TOPICS = [
    "harbor prices",
    "smuggler routes",
    "crypt secrets",
    "gem location",
    "ship cargo",
    "guard patrols",
    "tavern rumours",
    "the weather",
    "noble feuds",
    "market taxes",
    "temple relics",
    "caravan roads",
]
K = len(TOPICS)
VERIFY = 0.3
CHECKPOINTS = [5, 10, 20, 40]
REGIMES = [0.3, 0.5, 0.7, 0.9]
LAMS = [0.8, 0.9, 0.95, 0.98, 1.0]
SIGMA_GRID = [("judged", g) for g in (0.9, 0.95, 0.98, 0.99)] + [("topic", g) for g in (0.8, 0.9, 0.95)]
T0 = time.perf_counter()


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - T0:6.1f}s] {msg}", file=sys.stderr, flush=True)


def rng_for(seed: int, *keys: int) -> np.random.Generator:
    return np.random.default_rng([seed, *keys])


def peer_ids(n: int) -> list[str]:
    return [f"npc{i:02d}" for i in range(n)]


def fmt_ci(est: tuple[float, float, float], scale: float = 1.0, digits: int = 3, signed: bool = False) -> str:
    """A (mean, low, high) estimate (``mean_ci`` over seeds, ``paired_ci`` of a difference) as ``m [lo, hi]``."""
    m, lo, hi = est
    if not math.isfinite(m):
        return "n/a"
    f = f"{{:{'+' if signed else ''}.{digits}f}}"
    return f"{f.format(scale * m)} [{f.format(scale * lo)}, {f.format(scale * hi)}]"


def table(title: str, header: list[str], rows: list[list], note: str | None = None) -> str:
    cells = [[str(h) for h in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    line = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))  # noqa: E731
    out = [f"\n{title}", line(cells[0]), "  ".join("-" * w for w in widths)] + [line(r) for r in cells[1:]]
    if note:
        out.append(note)
    return "\n".join(out)


# --------------------------------------------------------------------------- baselines


class KeyedBeta(BetaReputation):
    """Beta counts per (NPC, topic) whose forgetting runs only when that (NPC, topic) is judged
    (the per-key clock; ``BetaReputation`` decays every count at every verified event)."""

    def write(self, topic, outcomes) -> None:
        items = self._outcomes(topic, outcomes, True)
        self._add_topic(topic)
        col = self._col(topic)
        idx = np.array([self.add_peer(p) for p, _ in items], dtype=np.intp)
        c = np.array([v for _, v in items], dtype=np.float64)
        self._t += 1
        if idx.size:
            self._alpha[idx, col] = self.lam * self._alpha[idx, col] + (1.0 + c) / 2.0
            self._beta[idx, col] = self.lam * self._beta[idx, col] + (1.0 - c) / 2.0


Factory = Callable[[list[str], list[str]], object]


def beta_factory(clock: str, lam: float, topic_aware: bool = True) -> Factory:
    if clock == "key" and topic_aware:
        return lambda peers, topics: KeyedBeta(peers, topics, lam=lam)
    return lambda peers, topics: BetaReputation(peers, topics, lam=lam, topic_aware=topic_aware)


def sigma_game(embedder=None) -> Factory:
    return lambda peers, topics: SigmaMem.for_world(peers, topics, embedder=embedder)


def sigma_grid(decay: str, gamma: float) -> Factory:
    return lambda peers, topics: SigmaMem.for_world(peers, topics, decay=decay, gamma=gamma)


def sigma_old(embedder=None) -> Factory:
    return lambda peers, topics: SigmaMem(peers, embedder=embedder)


def neutral(mem) -> float:
    return 0.5 if isinstance(mem, BetaReputation) else 0.0


def vote_of(mem, topic: str, claims: dict, name: str = "") -> object:
    if "route fallback" in name and not isinstance(mem, SigmaMem):  # the same rule Σ-Mem's M-Vote uses
        return mem.vote(topic, claims, fallback="route")
    if isinstance(mem, SigmaMem) and (mem.config.phi == "projection" or "majority fallback" in name):
        return mem.vote(topic, claims, fallback="majority")  # the old default's fallback
    return mem.vote(topic, claims)


# --------------------------------------------------------------------------- 1. Theorem 1


def theorem1(
    seed: int, runs: int, horizons: list[int], mus: list[float], gamma: float = 0.95, batch: int = 100
) -> dict:
    eta = 1 - gamma
    rows, cells = [], []
    for mi, mu in enumerate(mus):
        parts: dict[int, list] = {T: [] for T in horizons}
        for b in range(math.ceil(runs / batch)):
            n = min(batch, runs - b * batch)
            rng = rng_for(seed, 1, mi, b)
            peers = peer_ids(n)  # peers of one memory are independent runs: M_p only sees c_p
            mem = SigmaMem(peers, gamma=gamma)
            for t in range(1, max(horizons) + 1):
                c = np.where(rng.random(n) < (1 + mu) / 2, 1, -1)
                mem.write(TOPICS[0], dict(zip(peers, c.tolist())))
                if t in parts:
                    parts[t].append(mem.scores(TOPICS[0]))
        samples = {T: np.concatenate(v) for T, v in parts.items()}
        for T in horizons:
            s = samples[T]
            mean_th = eta * mu * (1 - gamma**T) / (1 - gamma)
            sd_th = eta * math.sqrt((1 - mu**2) * (1 - gamma ** (2 * T)) / (1 - gamma**2))
            em, es = abs(s.mean() - mean_th) / abs(mean_th), abs(s.std(ddof=1) - sd_th) / sd_th
            ok = bool(em <= 0.05 and es <= 0.05)
            cells.append({"mu": mu, "T": T, "mean_rel_err": float(em), "sd_rel_err": float(es), "pass": ok})
            rows.append(
                [
                    f"{mu:.1f}",
                    T,
                    f"{s.mean():.4f}",
                    f"{mean_th:.4f}",
                    f"{100 * em:.1f}%",
                    f"{s.std(ddof=1):.4f}",
                    f"{sd_th:.4f}",
                    f"{100 * es:.1f}%",
                    "ok" if ok else "FAIL",
                ]
            )
    print(
        table(
            f"1. Theorem 1: φᵀMφ after T aligned events (γ={gamma}, {runs} runs per cell)",
            ["mu", "T", "mean", "theory", "err", "sd", "theory", "err", "≤5%"],
            rows,
        )
    )
    return {"cells": cells, "all_pass": all(c["pass"] for c in cells)}


# --------------------------------------------------------------------------- 2. identification


def identification_pool(seed: int, P: int = 24):
    """Truth rates (P, K) before and after the sleepers turn, the turn rounds, and the kinds."""
    rng = rng_for(seed, 2)
    honest = rng.uniform(0.7, 0.95, size=(P, K))
    liar = rng.uniform(0.05, 0.3, size=(P, K))
    kinds = np.array(["honest"] * 10 + ["uniform"] * 4 + ["topic"] * 6 + ["sleeper"] * 4)[rng.permutation(P)]
    lies = np.zeros((P, K), dtype=bool)
    lies[kinds == "uniform"] = True
    for p in np.flatnonzero(kinds == "topic"):
        lies[p, rng.permutation(K)[: int(rng.integers(1, 4))]] = True
    horizon = max(CHECKPOINTS) * K
    turn = np.where(kinds == "sleeper", rng.integers(horizon // 4, 3 * horizon // 4, size=P), 10**9)
    return rng, np.where(lies, liar, honest), np.where(kinds[:, None] == "sleeper", liar, honest), turn, kinds, lies


def identification_run(seed: int, factories: dict[str, Factory]) -> dict[str, dict]:
    rng, before, after, turn, kinds, lies = identification_pool(seed)
    P = len(kinds)
    peers = peer_ids(P)
    mems = {name: f(peers, TOPICS) for name, f in factories.items()}
    out = {name: {"auroc": {}, "dragged": {}} for name in mems}
    for r in range(max(CHECKPOINTS) * K):
        k = int(rng.integers(K))
        rate = np.where(r >= turn, after[:, k], before[:, k])
        right = rng.random(P) < rate
        if rng.random() < VERIFY:
            outcomes = dict(zip(peers, np.where(right, 1, -1).tolist()))
            for m in mems.values():
                m.write(TOPICS[k], outcomes)
        n = (r + 1) / K
        if n in CHECKPOINTS:
            lying = (lies | ((r >= turn)[:, None] & (kinds == "sleeper")[:, None])).ravel()
            for name, m in mems.items():
                s = np.stack([m.scores(tp, peers) for tp in TOPICS], axis=1)  # (P, K)
                out[name]["auroc"][int(n)] = auroc(s.ravel()[~lying], s.ravel()[lying])
                med = np.median(s[kinds == "honest"], axis=0)
                truthful = (kinds == "topic")[:, None] & ~lies
                out[name]["dragged"][int(n)] = float((s < med[None, :])[truthful].mean())
    return out


# --------------------------------------------------------------------------- 3. decisions


def decision_run(
    seed: int, ci_: int, cf: float, factories: dict[str, Factory], rounds: int, P: int = 10, k: int = 4
) -> dict[str, np.ndarray]:
    rng = rng_for(seed, 3, ci_)
    peers = peer_ids(P)
    honesty = rng.uniform(0.6, 0.9, size=P)
    liars = np.zeros((P, K), dtype=bool)
    for t in range(K):
        liars[rng.permutation(P)[: round(cf * P)], t] = True
    mems = {name: f(peers, TOPICS) for name, f in factories.items()}
    oracle_w = np.log(honesty * (k - 1) / (1 - honesty))
    hit = {name: np.zeros(rounds, dtype=bool) for name in [*mems, "majority vote", "oracle (true weights)"]}
    route = {name: np.zeros(rounds, dtype=bool) for name in mems if name == "Σ-Mem (game)"}
    for r in range(rounds):
        t = int(rng.integers(K))
        truth = int(rng.integers(k))
        wrong = [a for a in range(k) if a != truth]
        lie = wrong[int(rng.integers(k - 1))]
        answers = [
            lie if liars[p, t] else truth if rng.random() < honesty[p] else wrong[int(rng.integers(k - 1))]
            for p in range(P)
        ]
        claims = dict(zip(peers, answers))
        for name, m in mems.items():
            hit[name][r] = vote_of(m, TOPICS[t], claims, name) == truth
        for name in route:
            route[name][r] = claims[mems[name].route(TOPICS[t], peers)] == truth
        hit["majority vote"][r] = weighted_choice(answers, [0.0] * P) == truth
        hit["oracle (true weights)"][r] = weighted_choice(answers, np.where(liars[:, t], 0.0, oracle_w)) == truth
        if rng.random() < VERIFY:
            outcomes = dict(zip(peers, np.where(np.array(answers) == truth, 1, -1).tolist()))
            for m in mems.values():
                m.write(TOPICS[t], outcomes)
    hit.update({f"{name}: M-Route": h for name, h in route.items()})
    return hit


def decisions(seeds: list[int], factories: dict[str, Factory], rounds: int) -> dict:
    """{CF@x: {method: {"all": [per seed], "second_half": [per seed]}}}."""
    out: dict = {}
    for ci_, cf in enumerate(REGIMES):
        key = f"CF@{round(100 * cf)}"
        out[key] = {}
        for seed in seeds:
            for name, h in decision_run(seed, ci_, cf, factories, rounds).items():
                d = out[key].setdefault(name, {"all": [], "second_half": []})
                d["all"].append(float(h.mean()))
                d["second_half"].append(float(h[rounds // 2 :].mean()))
    return out


def identification(seeds: list[int], factories: dict[str, Factory]) -> dict:
    """{method: {"auroc": {n: [per seed]}, "dragged": {n: [per seed]}}}."""
    out: dict = {
        name: {"auroc": {n: [] for n in CHECKPOINTS}, "dragged": {n: [] for n in CHECKPOINTS}} for name in factories
    }
    for seed in seeds:
        for name, res in identification_run(seed, factories).items():
            for part in ("auroc", "dragged"):
                for n, v in res[part].items():
                    out[name][part][n].append(v)
    return out


# --------------------------------------------------------------------------- 0. tuning


def tune(seeds: list[int], rounds: int) -> dict:
    grid: dict[str, Factory] = {}
    for clock in ("event", "key"):
        for lam in LAMS:
            grid[f"beta (NPC, topic) {clock} λ={lam}"] = beta_factory(clock, lam)
    for lam in LAMS:
        grid[f"beta (NPC) λ={lam}"] = beta_factory("event", lam, topic_aware=False)
    for decay, gamma in SIGMA_GRID:
        grid[f"Σ-Mem topics, decay={decay} γ={gamma}"] = sigma_grid(decay, gamma)
    ident = identification(seeds, grid)
    dec = decisions(seeds, grid, rounds)
    obj = {}
    for name in grid:
        auc = np.mean([np.nanmean(v) for v in ident[name]["auroc"].values()])
        acc = np.mean([np.mean(dec[c][name]["all"]) for c in dec])
        obj[name] = {"auroc": float(auc), "accuracy": float(acc), "objective": float(0.5 * auc + 0.5 * acc)}
    best = {
        fam: max((n for n in grid if n.startswith(fam)), key=lambda n: obj[n]["objective"])
        for fam in ("beta (NPC, topic)", "beta (NPC) ", "Σ-Mem")
    }
    rows = [
        [
            n,
            f"{o['auroc']:.4f}",
            f"{100 * o['accuracy']:.2f}",
            f"{o['objective']:.4f}",
            "best" if n in best.values() else "",
        ]
        for n, o in obj.items()
    ]
    print(
        table(
            f"0. Tuning on seeds {seeds[0]}-{seeds[-1]} ({len(seeds)} seeds): objective = ½ mean AUROC "
            f"(5-40 claims) + ½ mean accuracy (CF@30-90)",
            ["config", "AUROC", "acc %", "objective", ""],
            rows,
        )
    )
    return {"objective": obj, "best": best}


def parse_sigma(name: str) -> Factory:
    decay = name.split("decay=", 1)[1].split()[0]
    return sigma_grid(decay, float(name.rsplit("γ=", 1)[1]))


def parse_beta(name: str) -> Factory:
    lam = float(name.rsplit("λ=", 1)[1])
    if name.startswith("beta (NPC, topic)"):
        return beta_factory("key" if " key " in name else "event", lam)
    return beta_factory("event", lam, topic_aware=False)


# --------------------------------------------------------------------------- 4. sleeper detection


def sleeper_run(seed: int, factories: dict[str, Factory], t0: int, horizon: int, P: int = 10) -> dict[str, list]:
    rng = rng_for(seed, 4)
    peers = peer_ids(P)
    rates = rng.uniform(0.75, 0.95, size=(P, K))
    rates[0] = 0.9  # the sleeper
    mems = {name: f(peers, TOPICS) for name, f in factories.items()}
    delay = {name: [None, None] for name in mems}  # (below neutral, below honest median) on ≥ half the topics
    for r in range(t0 + horizon):
        if r == t0:
            rates[0] = 0.1
        k = int(rng.integers(K))
        right = rng.random(P) < rates[:, k]
        if rng.random() >= VERIFY:
            continue
        outcomes = dict(zip(peers, np.where(right, 1, -1).tolist()))
        for m in mems.values():
            m.write(TOPICS[k], outcomes)
        if r < t0:
            continue
        for name, m in mems.items():
            d = delay[name]
            if d[0] is not None and d[1] is not None:
                continue
            s = np.stack([m.scores(tp, peers) for tp in TOPICS], axis=1)  # (P, K)
            if d[0] is None and (s[0] < neutral(m)).mean() >= 0.5:
                d[0] = r - t0 + 1
            if d[1] is None and (s[0] < np.median(s[1:], axis=0)).mean() >= 0.5:
                d[1] = r - t0 + 1
    return delay


def sleepers(seeds: list[int], factories: dict[str, Factory], t0: int, horizon: int) -> dict:
    out = {name: {"below_neutral": [], "below_median": []} for name in factories}
    for seed in seeds:
        for name, (a, b) in sleeper_run(seed, factories, t0, horizon).items():
            out[name]["below_neutral"].append(a)
            out[name]["below_median"].append(b)
    return out


def delay_cell(values: list, horizon: int) -> str:
    d = np.array([horizon if v is None else v for v in values], dtype=np.float64)  # censored at the horizon
    found = np.mean([v is not None for v in values])
    return f"{fmt_ci(mean_ci(d), digits=0)} ({100 * found:.0f}% found)"


# --------------------------------------------------------------------------- 5. transfer


FAMILIES = {
    "treasure": ["buried treasure", "gold coins", "the jewel vault", "pirate chest"],
    "weather": ["storms at sea", "the tides", "wind direction", "fog on the harbor"],
    "trade": ["fish prices", "spice market", "grain tariffs", "merchant debts"],
    "watch": ["night patrols", "the watch captain", "gate guards", "prison cells"],
}


def families(shuffled: bool = False) -> list[list[str]]:
    """The topic families; ``shuffled``: a control where each family takes one name from every
    family above (a Latin square), so which NPC lies where no longer follows what the names mean."""
    fams = list(FAMILIES.values())
    if not shuffled:
        return fams
    return [[fams[(f + i) % len(fams)][i] for i in range(len(fams[0]))] for f in range(len(fams))]


def family_split(
    rng: np.random.Generator, shuffled: bool = False
) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    train, held = [], []
    for f, tps in enumerate(families(shuffled)):
        order = rng.permutation(len(tps))
        train += [(tps[i], f) for i in order[:3]]
        held += [(tps[order[3]], f)]
    return train, held


def transfer_factories(minilm, hashemb) -> dict[str, Factory]:
    out: dict[str, Factory] = {"Σ-Mem (game), hash names": sigma_game(hashemb)}
    if minilm is not None:
        out["Σ-Mem (game), MiniLM names"] = sigma_game(minilm)
        out["Σ-Mem projection r=16, MiniLM"] = sigma_old(minilm)
    out["Σ-Mem (old default), hash r=16"] = sigma_old(hashemb)
    return out


def transfer_memories(factories: dict[str, Factory], peers: list[str], declared: list[str]) -> dict:
    mems = {name: f(peers, declared) for name, f in factories.items()}
    mems["beta (NPC, topic)"] = KeyedBeta(peers, declared, lam=1.0)  # stationary liars: no forgetting is best
    mems["beta (NPC)"] = BetaReputation(peers, lam=1.0, topic_aware=False)
    mems["beta (NPC, family) [given labels]"] = KeyedBeta(peers, list(FAMILIES), lam=1.0)
    return mems


def memory_key(name: str, topic: str, family: int) -> str:
    return list(FAMILIES)[family] if "family" in name else topic


def transfer_run(
    seed: int, factories: dict[str, Factory], checkpoints: list[int], P: int = 20, shuffled: bool = False
) -> dict:
    """AUROC, honest vs lying (NPC, unseen topic) pairs, at the checkpoints (claims per declared topic)."""
    rng = rng_for(seed, 5)
    train, held = family_split(rng, shuffled)
    peers = peer_ids(P)
    fam_lies = np.zeros((P, len(FAMILIES)), dtype=bool)
    for j, p in enumerate(rng.permutation(P)[8:]):
        fam_lies[p, j % len(FAMILIES)] = True
    rate = {tp: np.where(fam_lies[:, f], rng.uniform(0.05, 0.3, P), rng.uniform(0.7, 0.95, P)) for tp, f in train}
    mems = transfer_memories(factories, peers, [tp for tp, _ in train])
    honest = np.concatenate([~fam_lies[:, f] for _, f in held])
    out: dict = {name: {} for name in mems}
    for r in range(max(checkpoints) * len(train)):
        tp, f = train[int(rng.integers(len(train)))]
        right = rng.random(P) < rate[tp]
        if rng.random() < VERIFY:
            outcomes = dict(zip(peers, np.where(right, 1, -1).tolist()))
            for name, m in mems.items():
                m.write(memory_key(name, tp, f), outcomes)
        n = (r + 1) / len(train)
        if n in checkpoints:
            for name, m in mems.items():
                s = np.concatenate([m.scores(memory_key(name, tp_, f_), peers) for tp_, f_ in held])
                out[name][int(n)] = auroc(s[honest], s[~honest])
    return out


def transfer_decision_run(
    seed: int,
    ci_: int,
    cf: float,
    factories: dict[str, Factory],
    train_claims: int = 20,
    test_rounds: int = 60,
    P: int = 10,
    k: int = 4,
) -> dict[str, float]:
    """CF@x per family (x·P colluding liars on each family): trained on the declared topics (30 %
    of rounds verified), then M-Vote on rounds about the unseen topics with the memory frozen."""
    rng = rng_for(seed, 6, ci_)
    train, held = family_split(rng)
    peers = peer_ids(P)
    honesty = rng.uniform(0.6, 0.9, size=P)
    liars = np.zeros((P, len(FAMILIES)), dtype=bool)
    for f in range(len(FAMILIES)):
        liars[rng.permutation(P)[: round(cf * P)], f] = True
    mems = transfer_memories(factories, peers, [tp for tp, _ in train])

    def ask(topics):
        tp, f = topics[int(rng.integers(len(topics)))]
        truth = int(rng.integers(k))
        wrong = [a for a in range(k) if a != truth]
        lie = wrong[int(rng.integers(k - 1))]
        return (
            tp,
            f,
            truth,
            [
                lie if liars[p, f] else truth if rng.random() < honesty[p] else wrong[int(rng.integers(k - 1))]
                for p in range(P)
            ],
        )

    for _ in range(train_claims * len(train)):
        tp, f, truth, answers = ask(train)
        if rng.random() < VERIFY:
            outcomes = dict(zip(peers, np.where(np.array(answers) == truth, 1, -1).tolist()))
            for name, m in mems.items():
                m.write(memory_key(name, tp, f), outcomes)
    hits = {name: 0 for name in [*mems, "majority vote"]}
    for _ in range(test_rounds):
        tp, f, truth, answers = ask(held)
        claims = dict(zip(peers, answers))
        for name, m in mems.items():
            hits[name] += vote_of(m, memory_key(name, tp, f), claims) == truth
        hits["majority vote"] += weighted_choice(answers, [0.0] * P) == truth
    return {name: h / test_rounds for name, h in hits.items()}


# --------------------------------------------------------------------------- reporting


GAME, TUNED, BASE = "Σ-Mem (game)", "Σ-Mem (tuned)", "beta (NPC, topic)"
BASE_FB = "beta (NPC, topic), route fallback"  # the beta with the fallback Σ-Mem's M-Vote uses


def verdict(diff: tuple[float, float, float]) -> str:
    """win / loss / tie from the 95 % interval of a paired difference."""
    _, lo, hi = diff
    return "win" if lo > 0 else "loss" if hi < 0 else "tie"


def report_identification(ident: dict, seeds: list[int]) -> None:
    rows = [[name] + [fmt_ci(mean_ci(d["auroc"][n])) for n in CHECKPOINTS] for name, d in ident.items()]
    for mine in (GAME, TUNED):
        diffs = {n: paired_ci(ident[mine]["auroc"][n], ident[BASE]["auroc"][n]) for n in CHECKPOINTS}
        rows.append(
            [f"paired {mine} − {BASE}"] + [f"{fmt_ci(diffs[n], signed=True)} {verdict(diffs[n])}" for n in CHECKPOINTS]
        )
    print(
        table(
            f"2a. Liar identification: AUROC, honest vs lying (NPC, topic) pairs, after n claims per NPC and "
            f"topic ({len(seeds)} seeds × 24 NPCs × {K} topics; {round(100 * VERIFY)}% of rounds verified)",
            ["method \\ claims n"] + [str(n) for n in CHECKPOINTS],
            rows,
        )
    )
    rows = [
        [name] + [fmt_ci(mean_ci(d["dragged"][n]), scale=100, digits=1) for n in CHECKPOINTS]
        for name, d in ident.items()
    ]
    print(
        table(
            "2b. Topic-specific liars on the topics where they tell the truth: % of those (NPC, topic) pairs "
            "scoring below the honest median (50% = unbiased)",
            ["method \\ claims n"] + [str(n) for n in CHECKPOINTS],
            rows,
        )
    )


def report_decisions(dec: dict, seeds: list[int], rounds: int) -> None:
    keys = list(dec)
    methods = list(dec[keys[0]])
    for part, label in (("all", "all rounds (online)"), ("second_half", f"rounds {rounds // 2 + 1}-{rounds}")):
        rows = [[m] + [fmt_ci(mean_ci(dec[c][m][part]), scale=100, digits=1) for c in keys] for m in methods]
        for mine, other in ((GAME, BASE), (TUNED, BASE), (GAME, "majority vote")):
            d = {c: paired_ci(dec[c][mine][part], dec[c][other][part]) for c in keys}
            rows.append(
                [f"paired {mine} − {other}"]
                + [f"{fmt_ci(d[c], scale=100, digits=1, signed=True)} {verdict(d[c])}" for c in keys]
            )
        print(
            table(
                f"3. Decision accuracy (%), {label}: {len(seeds)} seeds × {rounds} rounds, 10 NPCs, 4 options, "
                f"colluding liars, {round(100 * VERIFY)}% of rounds verified",
                ["method \\ regime"] + keys,
                rows,
            )
        )


def report_sleepers(sl: dict, t0: int, horizon: int) -> None:
    rows = [
        [name, delay_cell(d["below_median"], horizon), delay_cell(d["below_neutral"], horizon)]
        for name, d in sl.items()
    ]
    print(
        table(
            f"4. Sleeper detection: rounds after the turn (round {t0}) until the sleeper scores below the honest "
            f"median (below neutral) on at least half the {K} topics; mean [95% CI], misses count as {horizon}",
            ["method", "< honest median", "< neutral"],
            rows,
            note=f"  ({round(100 * VERIFY)}% of rounds verified: about one verified round per topic every "
            f"{1 / (VERIFY / K):.0f} rounds)",
        )
    )


def report_transfer(tr: dict, checkpoints: list[int], seeds: list[int]) -> None:
    a = tr["auroc"]
    rows = [[name] + [fmt_ci(mean_ci(a[name][n])) for n in checkpoints] for name in a]
    d = {n: paired_ci(a["Σ-Mem (game), hash names"][n], a["beta (NPC)"][n]) for n in checkpoints}
    rows.append(
        ["paired Σ-Mem (game, hash) − beta (NPC)"]
        + [f"{fmt_ci(d[n], signed=True)} {verdict(d[n])}" for n in checkpoints]
    )
    print(
        table(
            f"5a. Transfer to unseen topics: AUROC, honest vs lying (NPC, unseen topic) pairs ({len(seeds)} seeds "
            f"× 20 NPCs × 4 unseen topics; 12 declared topics trained, n claims per NPC and declared topic)",
            ["method \\ claims n"] + [str(n) for n in checkpoints],
            rows,
            note="  families: " + "; ".join(f"{f} = {', '.join(t)}" for f, t in FAMILIES.items()),
        )
    )
    sh = tr.get("auroc_shuffled") or {}
    if sh:
        rows = [[name] + [fmt_ci(mean_ci(sh[name][n])) for n in checkpoints] for name in sh if "family" not in name]
        print(
            table(
                "5a'. Control: the same names, families shuffled so lying no longer follows the names' "
                "meaning (AUROC on unseen topics)",
                ["method \\ claims n"] + [str(n) for n in checkpoints],
                rows,
            )
        )
    dec = tr["decisions"]
    keys = list(dec)
    rows = [[name] + [fmt_ci(mean_ci(dec[c][name]), scale=100, digits=1) for c in keys] for name in dec[keys[0]]]
    print(
        table(
            "5b. M-Vote accuracy (%) on unseen topics, memory frozen after 20 claims per declared topic "
            "(10 NPCs, 4 options, liars collude per family)",
            ["method \\ regime"] + keys,
            rows,
        )
    )


def goals(res: dict) -> list[tuple[str, str, str]]:
    ident, dec = res["identification"], res["decisions"]["results"]
    auc20 = ident[GAME]["auroc"][20]
    d20 = paired_ci(auc20, ident[BASE]["auroc"][20])
    out = [
        (
            "Theorem 1: simulated mean and sd within 5% of theory (every cell)",
            "met" if res["theorem1"]["all_pass"] else "NOT met",
            f"{sum(c['pass'] for c in res['theorem1']['cells'])}/{len(res['theorem1']['cells'])} cells",
        ),
        (
            "Σ-Mem (game) AUROC ≥ 0.95 after 20 claims",
            "met" if mean_ci(auc20)[0] >= 0.95 else "NOT met",
            fmt_ci(mean_ci(auc20)),
        ),
        (f"Σ-Mem (game) AUROC after 20 claims vs {BASE} (tuned)", verdict(d20), fmt_ci(d20, signed=True)),
        (
            "Topic-specific liars below the honest median on truthful topics ≤ 55% (20 claims)",
            "met" if mean_ci(ident[GAME]["dragged"][20])[0] <= 0.55 else "NOT met",
            f"{fmt_ci(mean_ci(ident[GAME]['dragged'][20]), 100, 1)} % (old default "
            f"{fmt_ci(mean_ci(ident['Σ-Mem (old default)']['dragged'][20]), 100, 1)} %)",
        ),
    ]
    for c in dec:
        d = paired_ci(dec[c][GAME]["all"], dec[c][BASE]["all"])
        out.append(
            (f"M-Vote vs {BASE} weighted vote at {c} (all rounds)", verdict(d), fmt_ci(d, 100, 1, signed=True) + " pts")
        )
    d70 = paired_ci(dec["CF@70"][GAME]["all"], dec["CF@70"]["majority vote"]["all"])
    out.append(
        (
            "M-Vote beats majority vote by ≥ 10 points at CF@70",
            "met" if d70[1] >= 0.10 else "NOT met",
            fmt_ci(d70, 100, 1, signed=True) + " pts",
        )
    )
    d90 = paired_ci(dec["CF@90"][GAME]["all"], dec["CF@90"]["Σ-Mem (game), majority fallback"]["all"])
    out.append(
        ("Route fallback vs majority fallback at CF@90", verdict(d90), fmt_ci(d90, 100, 1, signed=True) + " pts")
    )
    for cf in ("CF@70", "CF@90"):
        d = paired_ci(dec[cf][GAME]["all"], dec[cf][BASE_FB]["all"])
        out.append(
            (
                f"M-Vote vs beta (NPC, topic) with the same route fallback at {cf}",
                verdict(d),
                fmt_ci(d, 100, 1, signed=True) + " pts",
            )
        )
    ta = res["transfer"]["auroc"]
    dt = paired_ci(ta["Σ-Mem (game), hash names"][20], ta["beta (NPC)"][20])
    out.append(("Unseen topics: Σ-Mem (game) AUROC vs beta (NPC) (20 claims)", verdict(dt), fmt_ci(dt, signed=True)))
    return out


# --------------------------------------------------------------------------- main


def run_transfer(seeds: list[int], minilm, checkpoints: list[int]) -> dict:
    from memory.embedder import HashEmbedder

    factories = transfer_factories(minilm, HashEmbedder())
    au: dict = {}
    shuf: dict = {}
    for seed in seeds:
        for name, d in transfer_run(seed, factories, checkpoints).items():
            for n, v in d.items():
                au.setdefault(name, {}).setdefault(n, []).append(v)
        for name, d in transfer_run(seed, factories, checkpoints, shuffled=True).items():
            for n, v in d.items():
                shuf.setdefault(name, {}).setdefault(n, []).append(v)
    dec: dict = {}
    for ci_, cf in enumerate((0.5, 0.7)):
        key = f"CF@{round(100 * cf)}"
        for seed in seeds:
            for name, v in transfer_decision_run(seed, ci_, cf, factories).items():
                dec.setdefault(key, {}).setdefault(name, []).append(v)
    return {"auroc": au, "auroc_shuffled": shuf, "decisions": dec}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--seeds", type=seed_list, default="100-119", help="held-out seeds the tables report (default 100-119)"
    )
    ap.add_argument(
        "--tune-seeds",
        type=seed_list,
        default="0-9",
        help="seeds the baselines' forgetting and the Σ-Mem (tuned) reference are tuned on (default 0-9)",
    )
    ap.add_argument(
        "--quick", action="store_true", help="the first 5 tune and 8 held-out seeds, fewer Theorem 1 runs (a smoke run)"
    )
    ap.add_argument("--json", metavar="FILE", help="write every per-seed figure to FILE as JSON")
    ap.add_argument("--out", metavar="FILE", help="write the Markdown page (docs/benchmarks/trust_bench.md) to FILE")
    ap.add_argument(
        "--embedder",
        choices=["hash", "minilm"],
        default="hash",
        help="also run section 5 (unseen topics) with MiniLM topic embeddings (needs the model package)",
    )
    args = ap.parse_args(argv)
    seeds, tune_seeds = args.seeds, args.tune_seeds
    if set(seeds) & set(tune_seeds):
        ap.error("--seeds and --tune-seeds overlap: held-out figures must come from seeds tuning never saw")
    if args.quick:
        seeds, tune_seeds = seeds[:8], tune_seeds[:5]
    minilm = None
    if args.embedder == "minilm":
        from memory.embedder import EmbedderUnavailable, get_embedder

        try:
            minilm = get_embedder("minilm")
            minilm([tp for tps in FAMILIES.values() for tp in tps])
        except EmbedderUnavailable as exc:
            ap.error(f"--embedder minilm: {exc}")
    rounds = 40 * K
    print(
        f"Σ-Mem trust benchmark  held-out seeds {seeds[0]}-{seeds[-1]} ({len(seeds)})  tune seeds "
        f"{tune_seeds[0]}-{tune_seeds[-1]} ({len(tune_seeds)})  {'quick' if args.quick else 'full'}  "
        f"K={K} topics, {round(100 * VERIFY)}% of rounds verified"
    )
    res: dict = {"seeds": seeds, "tune_seeds": tune_seeds, "quick": args.quick, "seconds": {}}
    printed: dict[str, str] = {}

    def shown(key: str, fn: Callable[[], object]) -> object:
        """Run ``fn``, print what it prints and keep it for the page."""
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            out = fn()
        printed[key] = buf.getvalue()
        print(printed[key], end="")
        return out

    from benchmarks.trust_settings import measure  # it builds on this module's worlds and baselines

    t = time.perf_counter()
    res["settings"] = measure(seeds, tune_seeds)  # Σ-Mem where cross-topic structure should help
    res["seconds"]["settings"] = time.perf_counter() - t
    log("settings done")
    t = time.perf_counter()
    res["tuning"] = shown("tuning", lambda: tune(tune_seeds, rounds))
    best = res["tuning"]["best"]
    res["seconds"]["tuning"] = time.perf_counter() - t
    log("tuning done")
    res["theorem1"] = shown(
        "theorem1", lambda: theorem1(seeds[0], 1000 if args.quick else 4000, [20, 50, 200], [0.3, 0.6, 0.9])
    )
    factories: dict[str, Factory] = {
        GAME: sigma_game(),
        "Σ-Mem (game), majority fallback": sigma_game(),
        TUNED: parse_sigma(best["Σ-Mem"]),
        "Σ-Mem (old default)": sigma_old(),
        BASE: parse_beta(best["beta (NPC, topic)"]),
        BASE_FB: parse_beta(best["beta (NPC, topic)"]),
        "beta (NPC)": parse_beta(best["beta (NPC) "]),
    }
    cfg = SigmaMem.for_world().config
    print(
        f"\n  tuned on the tune seeds: {BASE} = {best['beta (NPC, topic)']}; beta (NPC) = {best['beta (NPC) ']}; "
        f"{TUNED} = {best['Σ-Mem']}. {GAME} = SigmaMem.for_world defaults (decay={cfg.decay}, γ={cfg.gamma}, "
        f"ρ={cfg.shared})."
    )
    ident_f = {k: v for k, v in factories.items() if "fallback" not in k}
    for name, fn in (
        ("identification", lambda: identification(seeds, ident_f)),
        ("decisions", lambda: {"rounds": rounds, "results": decisions(seeds, factories, rounds)}),
        ("sleepers", lambda: sleepers(seeds, ident_f, 240, 480)),
        ("transfer", lambda: run_transfer(seeds, minilm, [5, 10, 20])),
    ):
        t = time.perf_counter()
        res[name] = fn()
        res["seconds"][name] = time.perf_counter() - t
        log(f"{name} done")
    shown("identification", lambda: report_identification(res["identification"], seeds))
    shown("decisions", lambda: report_decisions(res["decisions"]["results"], seeds, rounds))
    shown("sleepers", lambda: report_sleepers(res["sleepers"], 240, 480))
    shown("transfer", lambda: report_transfer(res["transfer"], [5, 10, 20], seeds))
    res["goals"] = [{"goal": g, "status": st, "figures": f} for g, st, f in goals(res)]
    shown(
        "goals",
        lambda: print(
            table(
                "Goals (held-out seeds; win / tie / loss = 95% CI of the paired difference above / across / below 0)",
                ["goal", "status", "figures"],
                [[g["goal"], g["status"], g["figures"]] for g in res["goals"]],
            )
        ),
    )
    res["seconds"]["total"] = time.perf_counter() - T0
    print(f"\nrun time {res['seconds']['total']:.1f} s")
    if args.json:
        write_json(args.json, res)
        log(f"wrote {args.json}")
    if args.out:
        from benchmarks.trust_page import page

        given = list(argv if argv is not None else sys.argv[1:])
        shown_args = [a for i, a in enumerate(given) if a != "--json" and (i == 0 or given[i - 1] != "--json")]
        command = "python -m benchmarks.trust_bench" + "".join(f" {a}" for a in shown_args)
        span = lambda x: f"{x[0]}-{x[-1]}"  # noqa: E731
        goal_rows = res["settings"]["goals"] + res["goals"]
        text = page(
            command, res["seconds"]["total"], span(tune_seeds), span(seeds), printed, res["settings"], goal_rows
        )
        Path(args.out).write_text(text, encoding="utf-8")
        log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
