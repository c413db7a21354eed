"""How well the gate's claim extractor reads the benchmark stream's sentences.

For every text write of the gate benchmark's stream (``benchmarks.gate.stream``), the claims the
gate reads from the sentence are compared with what the sentence means: *read as meant* (one of
them is the meaning, up to the symmetry of ``knows`` and the inverse arrivals), *misread* (claims,
none of them the meaning) or *read as nothing*. Writes are split by whether the world file
declares their wording (``benchmarks.gate.wording``). Readers: the rules alone (no embedder), the
rules with the hashing embedder (the meaning reader abstains), and with MiniLM (it reads). The gate
runs without an embedder of its own, so every reader sees the same decisions' values.

``--calibrate`` picks the meaning reader's floor and margin on the given seeds (most read as meant,
a misreading costing three; a tie goes to the higher floor): run on the tune seeds 0-9 only; the chosen values are fixed in
``memory.relation_sense`` before the held-out seeds are measured.

    python -m benchmarks.gate_reading --seeds 0-9 --held-out 100-119
"""

from __future__ import annotations

import numpy as np

from benchmarks.gate.run import parsed_as_meant, world_lexicon
from benchmarks.gate.stream import Observation, generate
from benchmarks.gate.wording import declared
from benchmarks.lib.stats import mean_ci

READERS = ("rules", "hash", "minilm")
OUTCOMES = ("ok", "wrong", "none")


def parse_seeds(text: str) -> list[int]:
    """ "0-9" or "1,3,5" or "100-119" as a list of seeds."""
    out: list[int] = []
    for part in text.split(","):
        a, _, b = part.strip().partition("-")
        out += list(range(int(a), int(b) + 1)) if b else [int(a)]
    return out


def embedder_for(reader: str):
    if reader == "rules":
        return None
    from memory.embedder import get_embedder

    return get_embedder(reader)


def read_stream(seed: int, embedder=None, floor: float | None = None, margin: float | None = None):
    """(outcome, declared) per text write of one seed's stream, the gate hearing every write."""
    from memory.extract import RuleExtractor
    from memory.gate import ClaimCandidate, ConsistencyGate

    stream = generate(seed)
    lex = world_lexicon()
    gate = ConsistencyGate(lexicon=lex, credibility=stream.credibility)
    ex = RuleExtractor(lex, seen=gate.heard_values, embedder=embedder)
    if floor is not None:
        ex.sense.floor = floor
    if margin is not None:
        ex.sense.margin = margin
    gate._extractor = ex
    out = []
    for e in stream.events:
        if isinstance(e, Observation):
            gate.observe(e.subject, e.relation, e.object, e.truth, e.turn, topic=e.topic)
        elif e.mode == "struct":
            s, r, o, truth = e.form
            gate.submit(ClaimCandidate(s, r, o, e.topic, e.source, e.turn, truth=truth))
        else:
            ds = gate.hear(e.text, source=e.source, turn=e.turn)
            out.append((parsed_as_meant(e, ds), declared(e.form, lex)))
    return out


def rates(rows) -> dict[str, dict[str, tuple[float, float, float]]]:
    """Split -> outcome -> (share, CI low, CI high)."""
    got = np.array([r[0] for r in rows])
    dec = np.array([r[1] for r in rows], dtype=bool)
    out = {}
    for split, mask in (("declared", dec), ("undeclared", ~dec), ("all", np.ones_like(dec))):
        out[split] = {o: mean_ci((got[mask] == o).astype(float)) for o in OUTCOMES}
        out[split]["n"] = int(mask.sum())
    return out


def report(title: str, seeds: list[int], readers=READERS) -> None:
    print(f"\n{title} (seeds {seeds[0]}-{seeds[-1]}, text writes)")
    print(
        f"{'reader':8} {'split':11} {'n':>5}  "
        + "  ".join(f"{o:>22}" for o in ("read as meant", "misread", "read as nothing"))
    )
    for reader in readers:
        emb = embedder_for(reader)
        rows = [r for s in seeds for r in read_stream(s, emb)]
        for split, v in rates(rows).items():
            cells = "  ".join(f"{v[o][0]:6.1%} [{v[o][1]:5.1%}, {v[o][2]:5.1%}]" for o in OUTCOMES)
            print(f"{reader:8} {split:11} {v['n']:5d}  {cells}")


def calibrate(seeds: list[int]) -> tuple[float, float]:
    emb = embedder_for("minilm")
    best = None
    for floor in (0.6, 0.5, 0.4, 0.3):  # the higher floor first: it keeps a tie
        for margin in (0.0, 0.03, 0.06, 0.1):
            rows = [r for s in seeds for r in read_stream(s, emb, floor, margin)]
            ok = sum(r[0] == "ok" for r in rows)
            wrong = sum(r[0] == "wrong" for r in rows)
            print(f"floor {floor:.2f} margin {margin:.2f}: read as meant {ok}, misread {wrong}")
            if best is None or ok - 3 * wrong > best[0]:
                best = (ok - 3 * wrong, floor, margin)
    print(f"chosen: floor {best[1]:.2f}, margin {best[2]:.2f}")
    return best[1], best[2]
