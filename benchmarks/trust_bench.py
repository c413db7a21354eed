"""Trust benchmark: Σ-Mem (memory/sigma.py) against the beta-reputation baseline (memory/reputation.py).

Usage:  python benchmarks/trust_bench.py [--seed 0] [--quick] [--json FILE] [--embedder hash|minilm]

Every simulation draws from seeded ``numpy.random.Generator``s (one per part and
repetition), so a seed gives the same tables every time. Σ-Mem runs with its
defaults (γ = 0.95, η = 1 − γ, projection φ with r = 16 from the deterministic
hash embedder); the beta baselines use the same forgetting (λ = γ) unless said.

1. Theorem 1. Aligned events (one topic, φ fixed), c = +1 w.p. (1 + μ)/2, i.i.d.
   Over many independent runs (peers of one memory are independent runs: M_p
   only sees c_p), the mean and sd of φᵀMφ after T events are compared with
   ``ημ(1 − γ^T)/(1 − γ)`` and ``η√((1 − μ²)(1 − γ^{2T})/(1 − γ²))``; a cell passes
   within 5 % relative error.
2. Liar identification. Pools of NPCs with hidden per-(NPC, topic) truth rates,
   three topics. Each event asks one random topic and every NPC makes a claim
   that is verified (right w.p. its truth rate there). After 5/10/20/40 claims
   per NPC, the AUROC of the score at separating honest from lying (NPC, topic)
   pairs, pooled over topics, mean over pools. Scenarios: *uniform* (30 % of the
   NPCs lie on every topic) and *topic-conditional* (40 % honest everywhere, the
   rest lie on one or two of the three topics). Methods: Σ-Mem, beta keyed by
   NPC only (topic-blind), beta keyed by (NPC, topic).
   Honest truth rate ~ U(0.7, 0.95); a liar's ~ U(0.05, 0.3).
3. Decision accuracy. Rounds: a random topic, a question with k = 4 options;
   P = 10 NPCs answer; honest NPCs (truth rate ~ U(0.6, 0.9)) answer truly or
   else a uniform wrong option; the NPCs lying on that topic collude: all give
   the same wrong option. Regime CF@x: on each topic a hidden random x·P of the
   NPCs lie (a different set per topic). After each round the truth is verified
   and every NPC's outcome written. Methods: M-Route (ask the top-scored NPC),
   M-Vote (its spec fallback, majority when every weight is 0, and the
   ``fallback="route"`` variant), M-Vote with one-hot φ (no topic cross-talk),
   posterior selection with a simulated calibrated LLM judge (one verdict per
   distinct answer, right w.p. 0.7 or 0.9, reported as z = ±(2·acc − 1)),
   majority vote, the best fixed NPC in hindsight, the beta baselines' own
   log-odds weighted votes, and an oracle (weighted vote with the true
   log-odds weights ln(h(k−1)/(1−h)), liars weight 0).
   Accuracy over all rounds (online, learning included) and over the second half.
4. Flip detection. P = 10 NPCs, three topics, a random topic each round; one
   NPC (truth rate 0.9) turns liar (0.1) at round t0 on every topic or on one
   topic. Delay = rounds after t0 until its score on a flipped topic drops
   (a) below the neutral point (s < 0; beta trust < 0.5) and (b) below the
   median of the honest NPCs' scores there. Censored at the horizon.
5. Transfer to related, unseen topics (only with ``--embedder minilm``; the
   hash embedder has no semantics, so with it the section is skipped). Two
   topic families, FAMILIES below; an NPC is honest everywhere or lies on
   exactly one family. Per pool / run, 2 random topics of each family are
   trained on (verified claims, written to memory) and the other 2 are held
   out, never written. Σ-Mem uses the projection φ of MiniLM embeddings with
   r = 16 and r = 32 (projection seed drawn per pool); controls: Σ-Mem with
   the hash embedder, beta per (NPC, topic) (no data on an unseen topic: 0.5),
   topic-blind beta, and, as a reference that is *given* the family labels,
   beta per (NPC, family).
   (a) AUROC, honest vs lying (NPC, held-out topic) pairs after 10/20/40
       claims per NPC (P = 20: 40 % honest, 30 % lie on family A, 30 % on B;
       truth rates as in 2).
   (b) Decisions as in 3 (P = 10, k = 4, colluding liars, CF@x: per family a
       random x·P of the NPCs lie), trained for 40 rounds on the training
       topics, then scored on rounds about held-out topics with the memory
       frozen (no writes, so the topics stay unseen).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from memory.peers import weighted_choice  # noqa: E402
from memory.reputation import BetaReputation  # noqa: E402
from memory.sigma import SigmaMem  # noqa: E402

GAMMA = 0.95
ETA = 1 - GAMMA
TOPICS = ["harbor prices", "smuggler routes", "crypt secrets"]
T0 = time.perf_counter()


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - T0:6.1f}s] {msg}", file=sys.stderr, flush=True)


def rng_for(seed: int, *keys: int) -> np.random.Generator:
    return np.random.default_rng([seed, *keys])


def table(title: str, header: list[str], rows: list[list], note: str | None = None) -> str:
    cells = [[str(h) for h in header]] + [[c if isinstance(c, str) else f"{c}" for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    line = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))  # noqa: E731
    out = [f"\n{title}", line(cells[0]), "  ".join("-" * w for w in widths)] + [line(r) for r in cells[1:]]
    if note:
        out.append(note)
    return "\n".join(out)


def auroc(pos: np.ndarray, neg: np.ndarray) -> float:
    """P(score of a positive > score of a negative), ties counting 1/2 (Mann–Whitney)."""
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    d = pos[:, None] - neg[None, :]
    return float(((d > 0).sum() + 0.5 * (d == 0).sum()) / d.size)


def peer_ids(n: int) -> list[str]:
    return [f"npc{i:02d}" for i in range(n)]


# --------------------------------------------------------------------------- 1. Theorem 1


def theorem1(seed: int, runs: int, horizons: list[int], mus: list[float], batch: int = 100) -> dict:
    T_max = max(horizons)
    rows, cells = [], []
    for mi, mu in enumerate(mus):
        samples = {T: [] for T in horizons}
        for b in range(math.ceil(runs / batch)):
            n = min(batch, runs - b * batch)
            rng = rng_for(seed, 1, mi, b)
            peers = peer_ids(n)
            mem = SigmaMem(peers)
            for t in range(1, T_max + 1):
                c = np.where(rng.random(n) < (1 + mu) / 2, 1, -1)
                mem.write(TOPICS[0], dict(zip(peers, c.tolist())))
                if t in samples:
                    samples[t].append(mem.scores(TOPICS[0]))
        for T in horizons:
            s = np.concatenate(samples[T])
            mean_th = ETA * mu * (1 - GAMMA ** T) / (1 - GAMMA)
            sd_th = ETA * math.sqrt((1 - mu ** 2) * (1 - GAMMA ** (2 * T)) / (1 - GAMMA ** 2))
            mean, sd = float(s.mean()), float(s.std(ddof=1))
            em, es = abs(mean - mean_th) / abs(mean_th), abs(sd - sd_th) / sd_th
            ok = em <= 0.05 and es <= 0.05
            cells.append({"mu": mu, "T": T, "runs": len(s), "mean": mean, "mean_theory": mean_th,
                          "sd": sd, "sd_theory": sd_th, "mean_rel_err": em, "sd_rel_err": es, "pass": ok})
            rows.append([f"{mu:.1f}", T, f"{mean:.4f}", f"{mean_th:.4f}", f"{100 * em:.1f}%",
                         f"{sd:.4f}", f"{sd_th:.4f}", f"{100 * es:.1f}%", "ok" if ok else "FAIL"])
    print(table(f"1. Theorem 1: φᵀMφ after T aligned events (γ={GAMMA}, η={ETA:.2f}, {runs} runs per cell)",
                ["mu", "T", "mean", "theory", "err", "sd", "theory", "err", "≤5%"], rows))
    return {"cells": cells, "all_pass": all(c["pass"] for c in cells)}


# --------------------------------------------------------------------------- 2. liar identification


def truth_rates(rng: np.random.Generator, P: int, K: int, scenario: str) -> np.ndarray:
    """(P, K) truth rates; < 0.5 means 'lies on that topic'."""
    honest = rng.uniform(0.7, 0.95, size=(P, K))
    liar = rng.uniform(0.05, 0.3, size=(P, K))
    lies = np.zeros((P, K), dtype=bool)
    if scenario == "uniform":
        lies[rng.permutation(P)[: round(0.3 * P)], :] = True
    else:  # topic-conditional: 40 % honest everywhere, the rest lie on 1 or 2 topics
        for p in rng.permutation(P)[round(0.4 * P):]:
            k = rng.integers(1, K)  # 1 .. K-1 topics
            lies[p, rng.permutation(K)[:k]] = True
    return np.where(lies, liar, honest)


def liar_identification(seed: int, pools: int, checkpoints: list[int], P: int = 20) -> dict:
    K = len(TOPICS)
    methods = ["Σ-Mem", "beta (NPC)", "beta (NPC, topic)"]
    out: dict = {}
    for si, scenario in enumerate(["uniform", "topic-conditional"]):
        res = {m: {n: [] for n in checkpoints} for m in methods}
        for pool in range(pools):
            rng = rng_for(seed, 2, si, pool)
            rates = truth_rates(rng, P, K, scenario)
            peers = peer_ids(P)
            mems = {"Σ-Mem": SigmaMem(peers), "beta (NPC)": BetaReputation(peers, lam=GAMMA, topic_aware=False),
                    "beta (NPC, topic)": BetaReputation(peers, TOPICS, lam=GAMMA)}
            honest = (rates >= 0.5).ravel()
            for n in range(1, max(checkpoints) + 1):
                k = int(rng.integers(K))
                c = np.where(rng.random(P) < rates[:, k], 1, -1)
                outcomes = dict(zip(peers, c.tolist()))
                for m in mems.values():
                    m.write(TOPICS[k], outcomes)
                if n in checkpoints:
                    for name, m in mems.items():
                        s = np.stack([m.scores(tp, peers) for tp in TOPICS], axis=1).ravel()
                        res[name][n].append(auroc(s[honest], s[~honest]))
        out[scenario] = {m: {n: float(np.nanmean(v)) for n, v in d.items()} for m, d in res.items()}
        rows = [[m] + [f"{out[scenario][m][n]:.3f}" for n in checkpoints] for m in methods]
        print(table(f"2. Liar identification, {scenario} liars: AUROC of the score, honest vs lying "
                    f"(NPC, topic) pairs ({pools} pools × {P} NPCs × {K} topics)",
                    ["method \\ claims per NPC"] + [str(n) for n in checkpoints], rows))
    return out


# --------------------------------------------------------------------------- 3. decision accuracy


DECISION_METHODS = ["M-Route", "M-Vote", "M-Vote, route fallback", "M-Vote, one-hot φ",
                    "posterior, judge 70%", "posterior, judge 90%", "majority vote", "best fixed NPC (hindsight)",
                    "beta (NPC, topic) vote", "beta (NPC) vote", "oracle (true weights)"]


def decision_run(rng: np.random.Generator, cf: float, rounds: int, P: int = 10, k: int = 4) -> dict[str, np.ndarray]:
    K = len(TOPICS)
    peers = peer_ids(P)
    honesty = rng.uniform(0.6, 0.9, size=P)
    liars = np.zeros((P, K), dtype=bool)
    for t in range(K):
        liars[rng.permutation(P)[: round(cf * P)], t] = True
    sigma = SigmaMem(peers)
    onehot = SigmaMem(peers, TOPICS, phi="onehot")
    beta_t = BetaReputation(peers, TOPICS, lam=GAMMA)
    beta_p = BetaReputation(peers, lam=GAMMA, topic_aware=False)
    oracle_w = np.log(honesty * (k - 1) / (1 - honesty))
    hit = {m: np.zeros(rounds, dtype=bool) for m in DECISION_METHODS}
    peer_right = np.zeros((rounds, P), dtype=bool)
    for r in range(rounds):
        t = int(rng.integers(K))
        topic = TOPICS[t]
        truth = int(rng.integers(k))
        wrong = [a for a in range(k) if a != truth]
        lie = wrong[int(rng.integers(k - 1))]
        answers = []
        for p in range(P):
            if liars[p, t]:
                answers.append(lie)
            elif rng.random() < honesty[p]:
                answers.append(truth)
            else:
                answers.append(wrong[int(rng.integers(k - 1))])
        claims = dict(zip(peers, answers))
        judged = {}
        for acc in (0.7, 0.9):  # a calibrated judge: one verdict per distinct answer, U = ±(2·acc − 1)
            verdict = {a: (a == truth) == (rng.random() < acc) for a in sorted(set(answers))}
            judged[acc] = [(2 * acc - 1) * (1.0 if verdict[a] else -1.0) for a in answers]
        picks = {
            "M-Route": claims[sigma.route(topic, peers)],
            "M-Vote": sigma.vote(topic, claims),
            "M-Vote, route fallback": sigma.vote(topic, claims, fallback="route"),
            "M-Vote, one-hot φ": onehot.vote(topic, claims),
            "posterior, judge 70%": sigma.select(topic, claims, z=judged[0.7]),
            "posterior, judge 90%": sigma.select(topic, claims, z=judged[0.9]),
            "majority vote": weighted_choice(answers, [0.0] * P),
            "beta (NPC, topic) vote": beta_t.vote(topic, claims),
            "beta (NPC) vote": beta_p.vote(topic, claims),
            "oracle (true weights)": weighted_choice(answers, np.where(liars[:, t], 0.0, oracle_w)),
        }
        for m, a in picks.items():
            hit[m][r] = a == truth
        right = np.array(answers) == truth
        peer_right[r] = right
        outcomes = dict(zip(peers, np.where(right, 1, -1).tolist()))
        sigma.write(topic, outcomes)
        onehot.write(topic, outcomes)
        beta_t.write(topic, outcomes)
        beta_p.write(topic, outcomes)
    hit["best fixed NPC (hindsight)"] = peer_right[:, int(np.argmax(peer_right.sum(axis=0)))]
    return hit


def decision_accuracy(seed: int, reps: int, rounds: int, regimes: list[float]) -> dict:
    out: dict = {"all": {}, "second_half": {}}
    for ci, cf in enumerate(regimes):
        hits = [decision_run(rng_for(seed, 3, ci, rep), cf, rounds) for rep in range(reps)]
        key = f"CF@{round(100 * cf)}"
        out["all"][key] = {m: float(np.mean([h[m].mean() for h in hits])) for m in DECISION_METHODS}
        out["second_half"][key] = {m: float(np.mean([h[m][rounds // 2:].mean() for h in hits]))
                                   for m in DECISION_METHODS}
    keys = list(out["all"])
    for part, label in (("all", "all rounds (online)"), ("second_half", f"rounds {rounds // 2 + 1}-{rounds}")):
        rows = [[m] + [f"{100 * out[part][c][m]:.1f}" for c in keys] for m in DECISION_METHODS]
        print(table(f"3. Decision accuracy (%), {label}: {reps} runs × {rounds} rounds, 10 NPCs, 4 options, "
                    "colluding liars", ["method \\ regime"] + keys, rows))
    return out


# --------------------------------------------------------------------------- 4. flip detection


FLIP_METHODS = ["Σ-Mem", "beta (NPC, topic)", "beta (NPC)", "beta (NPC, topic), λ=1"]


def flip_run(rng: np.random.Generator, scope: str, t0: int, horizon: int, P: int = 10) -> dict[str, list]:
    K = len(TOPICS)
    peers = peer_ids(P)
    rates = np.tile(rng.uniform(0.75, 0.95, size=(P, 1)), (1, K))
    rates[0, :] = 0.9  # the NPC that will flip
    flipped = list(range(K)) if scope == "all topics" else [int(rng.integers(K))]
    mems = {"Σ-Mem": SigmaMem(peers), "beta (NPC, topic)": BetaReputation(peers, TOPICS, lam=GAMMA),
            "beta (NPC)": BetaReputation(peers, lam=GAMMA, topic_aware=False),
            "beta (NPC, topic), λ=1": BetaReputation(peers, TOPICS, lam=1.0)}
    neutral = {"Σ-Mem": 0.0}
    delay = {m: [None, None] for m in mems}  # (below neutral, below honest median)
    for r in range(t0 + horizon):
        if r == t0:
            rates[0, flipped] = 0.1
        t = int(rng.integers(K))
        c = np.where(rng.random(P) < rates[:, t], 1, -1)
        outcomes = dict(zip(peers, c.tolist()))
        for m in mems.values():
            m.write(TOPICS[t], outcomes)
        if r < t0:
            continue
        for name, m in mems.items():
            d = delay[name]
            if d[0] is not None and d[1] is not None:
                continue
            s = np.stack([m.scores(TOPICS[f], peers) for f in flipped])  # (flipped topics, P)
            below0 = (s[:, 0] < neutral.get(name, 0.5)).any()
            below_med = (s[:, 0] < np.median(s[:, 1:], axis=1)).any()
            if d[0] is None and below0:
                d[0] = r - t0 + 1
            if d[1] is None and below_med:
                d[1] = r - t0 + 1
    return delay


def flip_detection(seed: int, runs: int, t0: int, horizon: int) -> dict:
    out: dict = {}
    for si, scope in enumerate(["all topics", "one topic"]):
        res = [flip_run(rng_for(seed, 4, si, run), scope, t0, horizon) for run in range(runs)]
        out[scope] = {}
        rows = []
        for m in FLIP_METHODS:
            stats = []
            for j in range(2):
                d = np.array([x[m][j] if x[m][j] is not None else np.inf for x in res])
                found = np.isfinite(d)
                stats.append({"median": float(np.median(d)), "mean_detected": float(d[found].mean()) if found.any()
                              else None, "detected": float(found.mean())})
            out[scope][m] = {"below_neutral": stats[0], "below_honest_median": stats[1]}
            fmt = lambda x: "never" if not math.isfinite(x) else f"{x:.0f}"  # noqa: E731
            rows.append([m] + [v for st in stats for v in (fmt(st["median"]), f"{100 * st['detected']:.0f}%")])
        print(table(f"4. Flip detection, liar on {scope} from round {t0}: rounds until detected "
                    f"({runs} runs, horizon {horizon})",
                    ["method", "median: s<0 / trust<0.5", "found", "median: < honest median", "found"], rows,
                    note="  (found = share of runs detected within the horizon; rounds count every topic's rounds)"))
    return out


# --------------------------------------------------------------------------- 5. transfer to unseen topics


FAMILIES = {"A": ["treasure", "gold coins", "buried chest", "jewels"],
            "B": ["weather", "storm", "tides", "wind"]}
TRANSFER_METHODS = ["Σ-Mem, MiniLM φ r=16", "Σ-Mem, MiniLM φ r=32", "Σ-Mem, hash φ r=16 (control)",
                    "beta (NPC, topic)", "beta (NPC)", "beta (NPC, family) [given labels]"]
TRANSFER_DECISION_METHODS = ["M-Vote, MiniLM φ r=16", "M-Vote, MiniLM φ r=32", "M-Vote, MiniLM r=16, route fb",
                             "M-Vote, hash φ r=16 (control)", "majority vote", "beta (NPC, topic) vote",
                             "beta (NPC) vote", "beta (NPC, family) vote [given labels]", "oracle (true weights)"]


def family_split(rng: np.random.Generator) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(train, held-out) lists of (topic, family): 2 random topics of each family in each."""
    train, held = [], []
    for fam, tps in FAMILIES.items():
        order = rng.permutation(len(tps))
        train += [(tps[i], fam) for i in order[:2]]
        held += [(tps[i], fam) for i in order[2:]]
    return train, held


def transfer_memories(rng: np.random.Generator, peers: list[str], minilm, hashemb) -> dict:
    """The memories of section 5, keyed like TRANSFER_METHODS; one projection seed per pool / run."""
    pseed = int(rng.integers(2 ** 31))
    return {"Σ-Mem, MiniLM φ r=16": SigmaMem(peers, r=16, seed=pseed, embedder=minilm),
            "Σ-Mem, MiniLM φ r=32": SigmaMem(peers, r=32, seed=pseed, embedder=minilm),
            "Σ-Mem, hash φ r=16 (control)": SigmaMem(peers, r=16, seed=pseed, embedder=hashemb),
            "beta (NPC, topic)": BetaReputation(peers, lam=GAMMA),
            "beta (NPC)": BetaReputation(peers, lam=GAMMA, topic_aware=False),
            "beta (NPC, family) [given labels]": BetaReputation(peers, list(FAMILIES), lam=GAMMA)}


def write_all(mems: dict, topic: str, fam: str, outcomes: dict) -> None:
    for name, m in mems.items():
        m.write(fam if "family" in name else topic, outcomes)


def transfer_auroc(seed: int, pools: int, checkpoints: list[int], minilm, hashemb, P: int = 20) -> dict:
    res = {m: {n: [] for n in checkpoints} for m in TRANSFER_METHODS}
    seen = {n: [] for n in checkpoints}  # Σ-Mem r=16 on the training topics, for reference
    fams = list(FAMILIES)
    for pool in range(pools):
        rng = rng_for(seed, 5, 0, pool)
        train, held = family_split(rng)
        peers = peer_ids(P)
        lies = np.zeros((P, len(fams)), dtype=bool)  # 40 % honest, 30 % lie on A, 30 % lie on B
        order = rng.permutation(P)
        lies[order[round(0.4 * P):round(0.7 * P)], 0] = True
        lies[order[round(0.7 * P):], 1] = True
        rate = {tp: np.where(lies[:, fams.index(f)], rng.uniform(0.05, 0.3, P), rng.uniform(0.7, 0.95, P))
                for tp, f in train + held}
        mems = transfer_memories(rng, peers, minilm, hashemb)
        held_honest = np.concatenate([~lies[:, fams.index(f)] for _, f in held])
        train_honest = np.concatenate([~lies[:, fams.index(f)] for _, f in train])
        for n in range(1, max(checkpoints) + 1):
            tp, fam = train[int(rng.integers(len(train)))]
            c = np.where(rng.random(P) < rate[tp], 1, -1)
            write_all(mems, tp, fam, dict(zip(peers, c.tolist())))
            if n in checkpoints:
                for name, m in mems.items():
                    s = np.concatenate([m.scores(f if "family" in name else tp_, peers) for tp_, f in held])
                    res[name][n].append(auroc(s[held_honest], s[~held_honest]))
                m = mems["Σ-Mem, MiniLM φ r=16"]
                s = np.concatenate([m.scores(tp_, peers) for tp_, _ in train])
                seen[n].append(auroc(s[train_honest], s[~train_honest]))
    out = {m: {n: float(np.nanmean(v)) for n, v in d.items()} for m, d in res.items()}
    out["_seen_topics_sigma_r16"] = {n: float(np.nanmean(v)) for n, v in seen.items()}
    return out


def transfer_decision_run(rng: np.random.Generator, cf: float, train_rounds: int, test_rounds: int,
                          minilm, hashemb, P: int = 10, k: int = 4) -> dict[str, float]:
    peers = peer_ids(P)
    fams = list(FAMILIES)
    train, held = family_split(rng)
    honesty = rng.uniform(0.6, 0.9, size=P)
    liars = np.zeros((P, len(fams)), dtype=bool)
    for f in range(len(fams)):
        liars[rng.permutation(P)[: round(cf * P)], f] = True
    oracle_w = np.log(honesty * (k - 1) / (1 - honesty))
    mems = transfer_memories(rng, peers, minilm, hashemb)

    def ask(topics: list[tuple[str, str]]):
        tp, fam = topics[int(rng.integers(len(topics)))]
        f = fams.index(fam)
        truth = int(rng.integers(k))
        wrong = [a for a in range(k) if a != truth]
        lie = wrong[int(rng.integers(k - 1))]
        answers = [lie if liars[p, f] else truth if rng.random() < honesty[p] else wrong[int(rng.integers(k - 1))]
                   for p in range(P)]
        return tp, fam, f, truth, answers

    for _ in range(train_rounds):
        tp, fam, _, truth, answers = ask(train)
        write_all(mems, tp, fam, dict(zip(peers, np.where(np.array(answers) == truth, 1, -1).tolist())))
    hits = {m: 0 for m in TRANSFER_DECISION_METHODS}
    for _ in range(test_rounds):  # held-out topics, memory frozen
        tp, fam, f, truth, answers = ask(held)
        claims = dict(zip(peers, answers))
        picks = {
            "M-Vote, MiniLM φ r=16": mems["Σ-Mem, MiniLM φ r=16"].vote(tp, claims),
            "M-Vote, MiniLM φ r=32": mems["Σ-Mem, MiniLM φ r=32"].vote(tp, claims),
            "M-Vote, MiniLM r=16, route fb": mems["Σ-Mem, MiniLM φ r=16"].vote(tp, claims, fallback="route"),
            "M-Vote, hash φ r=16 (control)": mems["Σ-Mem, hash φ r=16 (control)"].vote(tp, claims),
            "majority vote": weighted_choice(answers, [0.0] * P),
            "beta (NPC, topic) vote": mems["beta (NPC, topic)"].vote(tp, claims),
            "beta (NPC) vote": mems["beta (NPC)"].vote(tp, claims),
            "beta (NPC, family) vote [given labels]": mems["beta (NPC, family) [given labels]"].vote(fam, claims),
            "oracle (true weights)": weighted_choice(answers, np.where(liars[:, f], 0.0, oracle_w)),
        }
        for m, a in picks.items():
            hits[m] += a == truth
    return {m: h / test_rounds for m, h in hits.items()}


def transfer(seed: int, pools: int, checkpoints: list[int], reps: int, train_rounds: int, test_rounds: int,
             regimes: list[float], minilm) -> dict:
    from memory.embedder import HashEmbedder
    hashemb = HashEmbedder()
    out: dict = {"auroc": transfer_auroc(seed, pools, checkpoints, minilm, hashemb)}
    seen = out["auroc"].pop("_seen_topics_sigma_r16")
    out["auroc_seen_topics_sigma_r16"] = seen
    rows = [[m] + [f"{out['auroc'][m][n]:.3f}" for n in checkpoints] for m in TRANSFER_METHODS]
    print(table(f"5a. Transfer to unseen topics: AUROC, honest vs lying (NPC, held-out topic) pairs "
                f"({pools} pools × 20 NPCs × 4 held-out topics; trained on 2 of 4 topics per family)",
                ["method \\ training claims per NPC"] + [str(n) for n in checkpoints], rows,
                note=f"  families A = {', '.join(FAMILIES['A'])}; B = {', '.join(FAMILIES['B'])}. "
                     f"Reference: Σ-Mem r=16 on the trained topics "
                     f"{' / '.join(f'{seen[n]:.3f}' for n in checkpoints)}."))
    out["decisions"] = {}
    for ci, cf in enumerate(regimes):
        runs = [transfer_decision_run(rng_for(seed, 5, 1, ci, rep), cf, train_rounds, test_rounds, minilm, hashemb)
                for rep in range(reps)]
        out["decisions"][f"CF@{round(100 * cf)}"] = {m: float(np.mean([r[m] for r in runs]))
                                                     for m in TRANSFER_DECISION_METHODS}
    keys = list(out["decisions"])
    rows = [[m] + [f"{100 * out['decisions'][c][m]:.1f}" for c in keys] for m in TRANSFER_DECISION_METHODS]
    print(table(f"5b. Decision accuracy (%) on unseen topics: {reps} runs, {train_rounds} training rounds on "
                f"seen topics, then {test_rounds} rounds on held-out topics (frozen memory), 10 NPCs, 4 options",
                ["method \\ regime"] + keys, rows))
    a, d = out["auroc"], out["decisions"]
    best_beta_auc = {n: max(a[m][n] for m in ("beta (NPC, topic)", "beta (NPC)")) for n in checkpoints}
    best_beta_acc = {c: max(d[c][m] for m in ("majority vote", "beta (NPC, topic) vote", "beta (NPC) vote"))
                     for c in keys}
    sig = "Σ-Mem, MiniLM φ r=16"
    auc_margin = {n: a[sig][n] - best_beta_auc[n] for n in checkpoints}
    acc_margin = {c: d[c]["M-Vote, MiniLM φ r=16"] - best_beta_acc[c] for c in keys}
    out["verdict"] = {"auroc_margin_over_best_beta": auc_margin, "accuracy_margin_over_best_baseline": acc_margin,
                      "beats_baselines": all(x > 0 for x in [*auc_margin.values(), *acc_margin.values()])}
    print(f"  Verdict: on unseen topics Σ-Mem (MiniLM φ, r=16) "
          f"{'beats' if out['verdict']['beats_baselines'] else 'does NOT always beat'} the unlabelled baselines: "
          f"AUROC {' / '.join(f'{auc_margin[n]:+.3f}' for n in checkpoints)} over the best beta "
          f"({'/'.join(map(str, checkpoints))} claims); M-Vote "
          f"{', '.join(f'{100 * acc_margin[c]:+.1f} pts at {c}' for c in keys)} over the best of majority and "
          f"beta votes. It stays below beta given the family labels (the ceiling).")
    return out


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="fewer runs and rounds (a smoke run, ~10 s)")
    ap.add_argument("--json", metavar="FILE", help="write every figure to FILE as JSON")
    ap.add_argument("--embedder", choices=["hash", "minilm"], default="hash",
                    help="topic embedder of section 5 (transfer to unseen topics); it runs only with minilm")
    args = ap.parse_args(argv)
    q = args.quick
    minilm = None
    if args.embedder == "minilm":  # fail fast, before the other sections
        from memory.embedder import EmbedderUnavailable, get_embedder
        try:
            t = time.perf_counter()
            minilm = get_embedder("minilm")
            minilm([tp for tps in FAMILIES.values() for tp in tps])
            minilm_load = time.perf_counter() - t
        except EmbedderUnavailable as exc:
            ap.error(f"--embedder minilm: {exc}")
    cfg = {
        "theorem1_runs": 2000 if q else 6000, "theorem1_T": [20, 50, 100] if q else [20, 50, 200],
        "theorem1_mu": [0.3, 0.6, 0.9],
        "liar_pools": 12 if q else 50, "liar_checkpoints": [5, 10, 20, 40],
        "decision_reps": 6 if q else 24, "decision_rounds": 150 if q else 300,
        "decision_regimes": [0.0, 0.5, 0.7, 0.9],
        "flip_runs": 40 if q else 200, "flip_t0": 60, "flip_horizon": 120,
    }
    if minilm is not None:
        cfg.update({"transfer_pools": 20 if q else 100, "transfer_checkpoints": [10, 20, 40],
                    "transfer_decision_reps": 20 if q else 120, "transfer_train_rounds": 40,
                    "transfer_test_rounds": 60, "transfer_regimes": [0.5, 0.7]})
    print(f"Σ-Mem trust benchmark  seed={args.seed}  {'quick' if q else 'full'}  "
          f"(γ={GAMMA}, η={ETA:.2f}, φ: projection r=16 of hash embeddings)")
    res: dict = {"seed": args.seed, "quick": q, "config": cfg, "seconds": {}}

    t = time.perf_counter()
    res["theorem1"] = theorem1(args.seed, cfg["theorem1_runs"], cfg["theorem1_T"], cfg["theorem1_mu"])
    res["seconds"]["theorem1"] = time.perf_counter() - t
    log("theorem 1 done")
    t = time.perf_counter()
    res["liars"] = liar_identification(args.seed, cfg["liar_pools"], cfg["liar_checkpoints"])
    res["seconds"]["liars"] = time.perf_counter() - t
    log("liar identification done")
    t = time.perf_counter()
    res["decisions"] = decision_accuracy(args.seed, cfg["decision_reps"], cfg["decision_rounds"],
                                         cfg["decision_regimes"])
    res["seconds"]["decisions"] = time.perf_counter() - t
    log("decision accuracy done")
    t = time.perf_counter()
    res["flip"] = flip_detection(args.seed, cfg["flip_runs"], cfg["flip_t0"], cfg["flip_horizon"])
    res["seconds"]["flip"] = time.perf_counter() - t
    log("flip detection done")
    if minilm is None:
        print("\n5. Transfer to related, unseen topics: skipped (needs --embedder minilm; hash embeddings have "
              "no semantics)")
        res["transfer"] = {"skipped": "needs --embedder minilm"}
    else:
        t = time.perf_counter()
        res["transfer"] = transfer(args.seed, cfg["transfer_pools"], cfg["transfer_checkpoints"],
                                   cfg["transfer_decision_reps"], cfg["transfer_train_rounds"],
                                   cfg["transfer_test_rounds"], cfg["transfer_regimes"], minilm)
        res["seconds"]["minilm_load"] = minilm_load
        res["seconds"]["transfer"] = time.perf_counter() - t
        log("transfer to unseen topics done")

    uni = res["liars"]["uniform"]
    tc = res["liars"]["topic-conditional"]
    d70 = res["decisions"]["all"]["CF@70"]
    goals = [
        ("Theorem 1: simulated mean and sd within 5% of theory (every cell)", res["theorem1"]["all_pass"],
         f"{sum(c['pass'] for c in res['theorem1']['cells'])}/{len(res['theorem1']['cells'])} cells"),
        ("Σ-Mem AUROC ≥ 0.95 after 20 claims (uniform liars)", uni["Σ-Mem"][20] >= 0.95,
         f"{uni['Σ-Mem'][20]:.3f}"),
        ("Σ-Mem AUROC ≥ 0.95 after 20 claims (topic-conditional liars)", tc["Σ-Mem"][20] >= 0.95,
         f"{tc['Σ-Mem'][20]:.3f}"),
        ("M-Vote beats majority vote by ≥ 10 points at CF@70 (all rounds)",
         d70["M-Vote"] - d70["majority vote"] >= 0.10,
         f"{100 * d70['M-Vote']:.1f} vs {100 * d70['majority vote']:.1f}"),
        ("Σ-Mem beats topic-blind beta on topic-conditional liars (AUROC, 20 claims)",
         tc["Σ-Mem"][20] > tc["beta (NPC)"][20], f"{tc['Σ-Mem'][20]:.3f} vs {tc['beta (NPC)'][20]:.3f}"),
    ]
    if minilm is not None:
        ta, td = res["transfer"]["auroc"], res["transfer"]["decisions"]["CF@70"]
        base_auc = max(ta["beta (NPC, topic)"][20], ta["beta (NPC)"][20])
        base_acc = max(td[m] for m in ("majority vote", "beta (NPC, topic) vote", "beta (NPC) vote"))
        goals += [
            ("Σ-Mem (MiniLM r=16) beats both beta baselines on unseen topics (AUROC, 20 claims)",
             ta["Σ-Mem, MiniLM φ r=16"][20] > base_auc, f"{ta['Σ-Mem, MiniLM φ r=16'][20]:.3f} vs {base_auc:.3f}"),
            ("M-Vote (MiniLM r=16) beats beta votes and majority on unseen topics at CF@70",
             td["M-Vote, MiniLM φ r=16"] > base_acc, f"{100 * td['M-Vote, MiniLM φ r=16']:.1f} vs {100 * base_acc:.1f}"),
        ]
    rows = [[g, "met" if ok else "NOT met", detail] for g, ok, detail in goals]
    print(table("Goals", ["goal", "status", "figures"], rows))
    res["goals"] = [{"goal": g, "met": bool(ok), "figures": detail} for g, ok, detail in goals]
    res["seconds"]["total"] = time.perf_counter() - T0
    print(f"\nrun time {res['seconds']['total']:.1f} s "
          f"({', '.join(f'{k} {v:.1f} s' for k, v in res['seconds'].items() if k != 'total')})")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2, ensure_ascii=False), encoding="utf-8")
        log(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
