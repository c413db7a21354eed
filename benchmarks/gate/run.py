"""Feeds a benchmark stream through ``memory.gate.ConsistencyGate`` (public API only).

Structured writes go to ``gate.submit``, text writes to ``gate.hear``,
observations to ``gate.observe``. A text write's outcome merges the decisions
the extractor produced for it: ``admit`` if any was admitted, else
``quarantine`` if any was held, else ``reject``; nothing extracted is ``none``.
The final status of a write is that of the fact(s) its decisions touched, read
after the whole stream (same merge: in memory before held before out).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from benchmarks.gate.stream import Observation

WORLD = Path(__file__).resolve().parent / "world"  # the benchmark's world file: the gate's lexicon comes from it alone

RANK = {"admit": 0, "quarantine": 1, "reject": 2}
FINAL_RANK = {"admitted": 0, "verified": 0, "quarantined": 1}


def gate_available() -> str:
    """ "" if the gate's lexicon API imports, else why not."""
    try:
        from memory.gate import ClaimCandidate, ConsistencyGate  # noqa: F401
        from memory.lexicon import Lexicon, RelationInfo  # noqa: F401
    except ImportError as exc:
        return str(exc)
    return ""


@lru_cache(maxsize=4)
def world_lexicon(folder: str | Path = WORLD):
    """The lexicon a game builds for the world in ``folder`` (``game.world.loader``, then
    ``memory.lexicon.Lexicon.from_spec``): the only wording the gate is given."""
    from game.play.worlds import load_world
    from memory.lexicon import Lexicon

    return Lexicon.from_spec(load_world(Path(folder)).spec)


def gate_config(**overrides):
    """The gate's default config with some fields changed (validated like any config)."""
    from memory.gate import GateConfig

    return GateConfig(**{**GateConfig().model_dump(), **overrides})


def build_gate(stream, embedder=None, jury=None, config=None, world: str | Path = WORLD):
    """A gate for one stream: the world file's lexicon, the stream's told credibility, and
    ``config`` (a ``GateConfig``, or a dict of fields to change; default: the gate's own)."""
    from memory.gate import ConsistencyGate

    if isinstance(config, dict):
        config = gate_config(**config)
    kw = {"lexicon": world_lexicon(world), "credibility": stream.credibility, "embedder": embedder, "config": config}
    if jury is not None:
        kw["jury"] = jury
    return ConsistencyGate(**kw)


@dataclass
class GateRun:
    outcomes: list[str] = field(default_factory=list)
    finals: list[str] = field(default_factory=list)
    decisions: list[list] = field(default_factory=list)
    latency_ms: list[float] = field(default_factory=list)
    observe_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    parsed: list[str] = field(default_factory=list)  # per write: "ok", "wrong" (not the meaning) or "none"


def _canon(s, r, o, truth) -> tuple:
    s, r, o = str(s).lower(), str(r).lower(), str(o).lower()
    try:
        o = str(float(o))
    except ValueError:
        pass
    if r == "arrives_after":
        s, r, o = o, "arrives_before", s
    if r == "knows":
        s, o = sorted((s, o))
    return (s, r, o, bool(truth))


def parsed_as_meant(w, decisions) -> str:
    """Did any decision judge the write's meaning (same claim up to symmetry of knows / inverse arrivals)?"""
    if not decisions:
        return "none"
    meant = _canon(w.subject, w.relation, w.object, w.truth)
    for d in decisions:
        c = d.candidate if isinstance(d.candidate, dict) else {}
        if _canon(c.get("subject"), c.get("relation"), c.get("object"), c.get("truth", True)) == meant:
            return "ok"
    return "wrong"


def _merge(decisions) -> str:
    if not decisions:
        return "none"
    return min((d.outcome for d in decisions), key=lambda o: RANK.get(o, 3))


def _submit(gate, w):
    from memory.gate import ClaimCandidate

    s, r, o, truth = w.form
    return [
        gate.submit(
            ClaimCandidate(
                subject=s, relation=r, object=o, topic=w.topic, source=w.source, turn=w.turn, text="", truth=truth
            )
        )
    ]


def run_gate(stream, embedder=None, jury=None, config=None) -> GateRun:
    gate = build_gate(stream, embedder, jury, config)
    run = GateRun()
    for e in stream.events:
        t0 = time.perf_counter()
        if isinstance(e, Observation):
            gate.observe(e.subject, e.relation, e.object, e.truth, e.turn, topic=e.topic)
            run.observe_ms.append((time.perf_counter() - t0) * 1e3)
            continue
        try:
            ds = _submit(gate, e) if e.mode == "struct" else list(gate.hear(e.text, source=e.source, turn=e.turn))
        except Exception as exc:  # noqa: BLE001  (a crash on one write is a finding, not the end of the run)
            run.errors.append(f"write {e.idx} ({e.cls}, {e.mode}): {type(exc).__name__}: {exc}")
            ds = []
        run.latency_ms.append((time.perf_counter() - t0) * 1e3)
        run.decisions.append(ds)
        run.outcomes.append(_merge(ds))
        run.parsed.append(parsed_as_meant(e, ds))
    facts = getattr(gate, "facts", {})
    for ds in run.decisions:
        statuses = [getattr(facts.get(d.fact), "status", "") for d in ds if getattr(d, "fact", None) is not None]
        run.finals.append(min(statuses, key=lambda s: FINAL_RANK.get(s, 2)) if statuses else "")
    return run


def describe(decisions) -> str:
    """A short account of what the gate did with one write (for the failure examples)."""
    parts = []
    for d in decisions:
        c = d.candidate if isinstance(d.candidate, dict) else {}
        bits = [
            f"[{c.get('subject')} {c.get('relation')} {'' if c.get('truth', True) else 'NOT '}{c.get('object')}]",
            d.outcome,
        ]
        for attr in ("reason", "score"):
            v = getattr(d, attr, None)
            if v not in (None, ""):
                bits.append(f"{v:.2f}" if isinstance(v, float) else str(v)[:80])
        parts.append(" ".join(bits))
    return "; ".join(parts) or "nothing extracted"
