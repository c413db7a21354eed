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


def build_gate(stream: Stream, embedder=None):
    from benchmarks.gate_blind.world import load_spec
    from memory.gate import ConsistencyGate
    from memory.lexicon import Lexicon

    spec, _ = load_spec()
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


def oracle_readings(stream: Stream, threshold: float | None) -> list[list[tuple]]:
    """The intended claims, admitted (threshold None) or kept out when the told credibility is below
    ``threshold``."""
    out = []
    for w in stream.writes:
        outcome = "admit" if threshold is None or w.cred >= threshold else "reject"
        out.append([(c.subject, c.relation, c.object, c.truth, outcome) for c in w.claims])
    return out


def tune_threshold(streams: list[Stream]) -> float:
    """The credibility threshold with the best pooled kept-out F1 on ``streams`` (ties: the lowest)."""
    from benchmarks.gate_blind.score import counts, figures

    best, best_f1 = THRESHOLDS[0], -1.0
    for th in THRESHOLDS:
        c = np.stack([counts(s.writes, oracle_readings(s, th)) for s in streams])
        f1 = float(np.nan_to_num(figures(c)["f1_kept_out"]))
        if f1 > best_f1 + 1e-12:
            best, best_f1 = th, f1
    return best
