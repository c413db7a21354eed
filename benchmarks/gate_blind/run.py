"""Feeds the held-out stream to ``memory.gate.ConsistencyGate`` through its public API, and two
simple baselines on the same writes.

The gate is built from the Sallowford world's lexicon (``Lexicon.from_spec``) and the stream's told
credibility. Observations go to ``gate.observe``, every write's text to ``gate.hear``; a write's
reading is what the gate decided for it (see ``score``). The baselines are handed the intended
claims (oracle ids), so they never misread: "admit everything", and a threshold on the told
credibility (kept out below it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from benchmarks.gate_blind.stream import Observation, Stream

THRESHOLDS = tuple(float(x) for x in np.round(np.arange(0.0, 1.0001, 0.05), 2))
WINDOWS = (5.0, 10.0, 20.0, 40.0, 80.0, 1e9)  # turns an observation is trusted for (1e9: for ever)


def build_gate(stream: Stream, embedder=None):
    from benchmarks.gate_blind.world import load_spec
    from memory.gate import ConsistencyGate
    from memory.lexicon import Lexicon

    spec = load_spec()
    return ConsistencyGate(lexicon=Lexicon.from_spec(spec), credibility=stream.credibility, embedder=embedder)


@dataclass
class GateRun:
    readings: list[list[tuple]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    reasons: list[list[str]] = field(default_factory=list)
    seconds: float = 0.0


def _reading(decisions) -> tuple[list[tuple], list[str]]:
    out, why = [], []
    for d in decisions:
        c = d.candidate if isinstance(d.candidate, dict) else {}
        out.append((c.get("subject"), c.get("relation"), c.get("object"), c.get("truth", True), d.outcome))
        why.append(str(getattr(d, "reason", ""))[:100])
    return out, why


def run_gate(stream: Stream, embedder=None) -> GateRun:
    gate = build_gate(stream, embedder)
    run = GateRun()
    t0 = time.perf_counter()
    for e in stream.events:
        if isinstance(e, Observation):
            c = e.claim
            gate.observe(c.subject, c.relation, c.object, c.truth, e.turn, topic=e.topic)
            continue
        try:
            decisions = list(gate.hear(e.text, source=e.source, turn=e.turn))
        except Exception as exc:  # noqa: BLE001  (a crash on one write is a finding, not the end of the run)
            run.errors.append(f"write {e.idx} ({e.cls}): {type(exc).__name__}: {exc}")
            decisions = []
        reading, why = _reading(decisions)
        run.readings.append(reading)
        run.reasons.append(why)
    run.seconds = time.perf_counter() - t0
    return run


def oracle_readings(stream: Stream, threshold: float | None, window: float | None = None) -> list[list[tuple]]:
    """The intended claims: admitted (threshold None), or kept out when the told credibility is below
    ``threshold``. With a ``window`` (turns), a claim on a (subject, relation) observed at most that
    many turns before is judged by the observation instead: admitted if it agrees, else rejected."""
    from benchmarks.gate_blind.stream import same_value

    seen: dict[tuple[str, str], tuple[int, str]] = {}
    out = []
    for e in stream.events:
        if isinstance(e, Observation):
            seen[(e.claim.subject, e.claim.relation)] = (e.turn, e.claim.object)
            continue
        reading = []
        for c in e.claims:
            outcome = "admit" if threshold is None or e.cred >= threshold else "reject"
            turn, value = seen.get((c.subject, c.relation), (None, ""))
            if window is not None and turn is not None and e.turn - turn <= window:
                outcome = "admit" if same_value(c.relation, value, c.object) == c.truth else "reject"
            reading.append((c.subject, c.relation, c.object, c.truth, outcome))
        out.append(reading)
    return out


def tune(streams: list[Stream], windows=(None,)) -> tuple[float, float | None]:
    """The (threshold, window) with the best pooled kept-out F1 on ``streams`` (ties: the first)."""
    from benchmarks.gate_blind.score import counts, figures

    best, best_f1 = (THRESHOLDS[0], windows[0]), -1.0
    for window in windows:
        for th in THRESHOLDS:
            c = np.stack([counts(s.writes, oracle_readings(s, th, window)) for s in streams])
            f1 = float(np.nan_to_num(figures(c)["f1_kept_out"]))
            if f1 > best_f1 + 1e-12:
                best, best_f1 = (th, window), f1
    return best


def tune_threshold(streams: list[Stream]) -> float:
    """The credibility threshold with the best pooled kept-out F1 on ``streams`` (ties: the lowest)."""
    return tune(streams)[0]
