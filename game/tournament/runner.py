"""Running a tournament: matches in batches through a backend, rows appended as they finish.

Backends: ``local`` (this process), ``processes`` (a process pool) and ``ray`` (a local Ray cluster,
or the one ``ray_address`` names; ``pip install 'parley-engine[scale]'``). Each runs
``game.tournament.play.run_batch`` on the same payloads, so all three give the same rows (apart
from ``wall_time`` and an LLM's ``llm_seconds``); only the order of lines in ``results.jsonl``
depends on which batch finished first. A kind's quick matches (``TournamentKind.quick_matches``: rule-based negotiations, scripted
debates) go many to a batch; LLM matches and slow kinds' (adventure, council) one at a time, so the
token and spend limits stop the run promptly.

LLM competitors on the bundled local model (``llm = "local"``: ``agents.llm.local``) share one
model server per run: ``run`` starts it here before the backend starts its workers and hands them
its URL (``PARLEY_LOCAL_LLM``), so every worker talks to that server instead of starting its own.
It stops when this process exits, or at once when the run is interrupted.

``--resume`` skips every match whose row is in the file: a tournament killed at any instant and
resumed ends with the same rows as one that ran through, and never plays a finished match twice.
"""

from __future__ import annotations

import itertools
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from game.core.errors import InputError
from game.core.files import MAX_FILE_BYTES, read_text, stat_of
from game.tournament import DEFAULT_MAX_MATCHES, max_workers
from game.tournament.kinds import kind_for
from game.tournament.matches import competitor_specs, count_resolved, counted, iter_matches, resolve_scenarios
from game.tournament.model import Match, TournamentConfig, digest, endpoint
from game.tournament.results import (
    CONFIG,
    RESULTS,
    SCENARIOS,
    ResultLines,
    ResultsWriter,
    finished_ids,
    results_limit,
    write_json,
)

BACKENDS = ("local", "processes", "ray")


class Matches:
    """Every match of a plan, made on demand (``iter_matches``), never all held at once:
    ``len`` is the count from the config, iterating makes them in their fixed order."""

    def __init__(self, cfg: TournamentConfig, scenarios: dict[str, dict[str, Any]], total: int):
        self._cfg, self._scenarios, self._total = cfg, scenarios, total
        self._specs = competitor_specs(cfg)  # a competitor whose settings do not resolve stops the plan here

    def __len__(self) -> int:
        return self._total

    def __iter__(self) -> Iterator[Match]:
        return iter_matches(self._cfg, self._scenarios, self._specs)


@dataclass
class Plan:
    """What a run would do: the matches (made on demand), which are finished, and the scenarios they need."""

    config: TournamentConfig
    scenarios: dict[str, dict[str, Any]]
    matches: Matches
    done: set[str] = field(default_factory=set)
    max_matches: int = DEFAULT_MAX_MATCHES

    @property
    def todo(self) -> Iterator[Match]:
        """The unfinished matches, one at a time."""
        return (m for m in self.matches if m.id not in self.done)

    @property
    def remaining(self) -> int:
        """How many matches are unfinished (``done`` holds only this plan's match ids)."""
        return len(self.matches) - len(self.done)

    @property
    def fingerprint(self) -> str:
        return self.scan()[0]

    def scan(self, ids: Iterable[str] = ()) -> tuple[str, set[str]]:
        """One pass over the matches: their fingerprint (a digest of the set of match ids,
        whatever their order) and which of ``ids`` are matches of this plan."""
        wanted, found = set(ids), set()
        total, h = 0, 0
        for m in self.matches:
            total += 1
            h = (h + int(m.id, 16)) % (1 << 64)
            if m.id in wanted:
                found.add(m.id)
        return digest({"matches": total, "sum": h}), found


@dataclass
class RunSummary:
    total: int
    skipped: int
    played: int
    stopped: str | None
    seconds: float
    notes: list[str]
    out: Path


def plan(cfg: TournamentConfig, base: Path, max_matches: int = DEFAULT_MAX_MATCHES) -> Plan:
    """The tournament's plan: its match count is checked against ``max_matches`` from the config
    before any scenario is made (an ``InputError`` naming the factors), and the matches are made
    only when iterated."""
    counted(cfg, base, max_matches)
    scenarios = resolve_scenarios(cfg, base)
    total = count_resolved(cfg, scenarios, max_matches)
    return Plan(cfg, scenarios, Matches(cfg, scenarios, total), max_matches=max_matches)


def _uses_llm(cfg: TournamentConfig) -> bool:
    return any(c.agent == "llm" for c in cfg.competitors)


def local_models(p: Plan) -> list[str]:
    """The local model specs (``local``, ``local:PATH.gguf``) the LLM competitors of the unfinished
    matches use, as their match ids record them."""
    from agents.llm.local import is_local_spec

    local = {
        c.name: s for c in p.config.competitors if c.agent == "llm" and is_local_spec(s := endpoint(c)["base_url"])
    }
    if not local:
        return []
    seated: set[str] = set()
    for m in p.todo:  # stops as soon as every local competitor is seen
        seated |= local.keys() & set(m.seats.values())
        if seated == local.keys():
            break
    return sorted({local[name] for name in seated})


def share_local_models(p: Plan) -> dict[str, str]:
    """Start (or reuse) the server of each local model the run needs, in this process, before any
    worker starts; returns the environment the workers need to reuse them (``PARLEY_LOCAL_LLM``)."""
    specs = local_models(p)
    if not specs:
        return {}
    from agents.llm.local import ENV, shared_url

    for spec in specs:
        shared_url(spec)
    return {ENV: os.environ[ENV]}


def batch_size(p: Plan, workers: int) -> int:
    """Matches per payload: many when the kind's are quick (``quick_matches``: rule-based
    negotiations, scripted debates) and no competitor is an LLM, else one."""
    if not kind_for(p.config.kind).quick_matches or _uses_llm(p.config):
        return 1
    return max(1, min(200, math.ceil(p.remaining / (max(1, workers) * 8))))


def iter_batches(p: Plan, workers: int, size: int | None = None) -> Iterator[dict[str, Any]]:
    """Payloads for ``run_batch``, made one at a time as a backend asks for them (``batch_size``
    matches each unless ``size`` says)."""
    size = size or batch_size(p, workers)
    cfg = p.config.model_dump(mode="json")
    todo = p.todo
    while chunk := list(itertools.islice(todo, size)):
        sids = dict.fromkeys(m.scenario for m in chunk)
        yield {
            "config": cfg,
            "scenarios": {s: p.scenarios[s] for s in sids},
            "matches": [m.model_dump(mode="json") for m in chunk],
        }


def batches(p: Plan, workers: int, size: int | None = None) -> list[dict[str, Any]]:
    """Every payload of ``iter_batches`` at once (for a small plan)."""
    return list(iter_batches(p, workers, size))


# --- backends ------------------------------------------------------------------------------
def _local(
    payloads: Iterable[dict[str, Any]], workers: int, stop: Callable[[], bool], **_: Any
) -> Iterator[list[dict]]:
    from game.tournament.play import run_batch

    for p in payloads:
        if stop():
            return
        yield run_batch(p)


def _processes(
    payloads: Iterable[dict[str, Any]],
    workers: int,
    stop: Callable[[], bool],
    env: dict[str, str] | None = None,
    **_: Any,
) -> Iterator[list[dict]]:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    from game.tournament.play import run_batch

    # workers fork from a clean server process that has imported the player once: quick to start, and
    # never a fork of this process, which runs threads (the progress display, BLAS); that server keeps
    # the environment it started with, so the workers are given what changed since (``env``)
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(
        ["game.tournament.play", "agents.negotiators", "game.negotiation.metrics", "game.negotiation.runner"]
    )
    queue = iter(payloads)
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=_start_worker, initargs=(os.getpid(), env or {})
    ) as pool:
        running: set = set()
        try:
            while True:
                while len(running) < 2 * workers and not stop() and (batch := next(queue, None)) is not None:
                    running.add(pool.submit(run_batch, batch))
                if not running:
                    return
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for f in finished:
                    yield f.result()
        finally:
            for f in running:
                f.cancel()


def _start_worker(pid: int, env: dict[str, str]) -> None:
    """A pool worker's start: the tournament's environment (the local model's server), and a watch
    on the tournament process."""
    os.environ.update(env)
    _watch_parent(pid)


def _watch_parent(pid: int) -> None:
    """In a pool worker: exit when the tournament process is gone (killed with SIGKILL, a pool's
    workers would otherwise live on, orphaned, holding memory)."""
    import threading

    def watch() -> None:
        while True:
            time.sleep(1.0)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:  # the pid was reused by another user's process: ours is gone
                os._exit(1)

    threading.Thread(target=watch, name="parley-parent-watch", daemon=True).start()


def _ray(
    payloads: Iterable[dict[str, Any]],
    workers: int,
    stop: Callable[[], bool],
    address: str | None = None,
    env: dict[str, str] | None = None,
    **_: Any,
) -> Iterator[list[dict]]:
    from game.core.extras import require

    require("scale", "the ray backend (--backend ray)")
    import ray

    from game.tournament.play import run_batch

    started = not ray.is_initialized()
    if started:
        kw: dict[str, Any] = {"address": address} if address else {"num_cpus": workers, "include_dashboard": False}
        if env:  # the local model's server (a worker on another machine starts its own)
            kw["runtime_env"] = {"env_vars": env}
        try:
            ray.init(ignore_reinit_error=True, log_to_driver=False, logging_level="error", **kw)
        except (ValueError, ConnectionError) as e:  # a malformed address, or no cluster there
            if not address:
                raise
            from game.core.errors import InputError
            from game.core.text import shown

            said = shown(str(e).splitlines()[0] if str(e) else type(e).__name__)[:200]
            raise InputError(
                f"--ray-address {shown(address)[:80]}: cannot join a Ray cluster there: {said}",
                hint="give a running cluster's address (host:port, or auto for this machine's)",
            ) from None
    remote = ray.remote(run_batch)
    queue = iter(payloads)
    running: list = []
    try:
        while True:
            while len(running) < 2 * workers and not stop() and (batch := next(queue, None)) is not None:
                running.append(remote.remote(batch))
            if not running:
                return
            ready, running = ray.wait(running, num_returns=1)
            for ref in ready:
                yield ray.get(ref)
    finally:
        for ref in running:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


_BACKENDS = {"local": _local, "processes": _processes, "ray": _ray}


# --- the run -------------------------------------------------------------------------------
def _stored_fingerprint(meta: Path) -> str | None:
    """The fingerprint ``meta`` (tournament.json) records, or None when it has none; a meta that is
    not a regular file of bounded size is an ``InputError`` naming it."""
    import json

    try:
        old = json.loads(read_text(meta, limit=4 * MAX_FILE_BYTES)).get("fingerprint")
    except (ValueError, AttributeError, RecursionError):  # damaged: it is written again
        return None
    return old if isinstance(old, str) else None


def _same_tournament(p: Plan, old: str | None, new: str) -> bool:
    if old is None or old == new:
        return True
    # a folder written before fingerprints were sums: the digest of the sorted ids
    return len(p.matches) <= DEFAULT_MAX_MATCHES and old == digest(sorted(m.id for m in p.matches))


def prepare(p: Plan, out: Path, resume: bool) -> list[str]:
    """Check and set up ``out``: refuse to mix runs, cut a torn last line, note what is finished.
    One pass over the matches finds which finished rows are this plan's."""
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out} is not a folder", hint="give a folder for the results and report")
    out.mkdir(parents=True, exist_ok=True)
    results, meta = out / RESULTS, out / CONFIG
    lines = ResultLines(results, results_limit(p.max_matches))
    lines.check()
    notes: list[str] = []
    if stat_of(results)[0] is not None and results.stat().st_size and not resume:
        raise InputError(
            f"{out} already holds results ({results.name})",
            hint="add --resume to continue that tournament, or give another --out",
        )
    old = _stored_fingerprint(meta) if stat_of(meta)[1] != "missing" else None
    rows, note = finished_ids(results, limit=lines.limit)
    if note:
        notes.append(note)
    seen: set[str] = set()
    for n, mid in rows:
        if mid in seen:
            raise InputError(
                f"{results}:{n}: match {mid} appears twice",
                hint="a results file holds each match once; remove the copy, or start another --out",
            )
        seen.add(mid)
    fingerprint, found = p.scan(seen)
    if resume and not _same_tournament(p, old, fingerprint):
        raise InputError(
            f"{out} holds another tournament (its matches differ from this config's)",
            hint="resume with the config that started it, or give another --out",
        )
    for n, mid in rows:
        if mid not in found:
            raise InputError(
                f"{results}:{n}: row {mid} is not a match of this tournament",
                hint="the file was edited or comes from another config; start another --out",
            )
    p.done = seen
    write_json(
        meta,
        {
            "name": p.config.name,
            "kind": p.config.kind,
            "fingerprint": fingerprint,
            "matches": len(p.matches),
            "config": p.config.model_dump(mode="json"),
        },
    )
    write_json(out / SCENARIOS, {k: {kk: vv for kk, vv in v.items() if kk != "world"} for k, v in p.scenarios.items()})
    return notes


def check_ray_address(address: str) -> None:
    """Refuse (exit 2), before ``out`` is touched, a ``--ray-address`` that is not ``auto``,
    ``local`` or ``[ray://]host:port`` with a host name that can be encoded and a port 1-65535."""
    import re

    from game.core.text import shown

    if address in ("auto", "local"):
        return
    m = re.fullmatch(r"(?:ray://)?(\[[0-9a-fA-F:.]+\]|[^\s:/\[\]]+):(\d{1,5})", address)
    ok = m is not None and 1 <= int(m.group(2)) <= 65535
    if ok and m is not None:
        try:
            m.group(1).strip("[]").encode("idna")
        except UnicodeError:
            ok = False
    if not ok:
        raise InputError(
            f"--ray-address {shown(address)[:80]}: not an address of a Ray cluster",
            hint="give host:port (or ray://host:port), or auto for the cluster on this machine",
        )


def run(
    p: Plan,
    out: Path,
    *,
    backend: str = "local",
    workers: int = 1,
    resume: bool = False,
    ray_address: str | None = None,
    batch_size: int | None = None,
    on_start: Callable[[], None] | None = None,
    on_rows: Callable[[list[dict[str, Any]]], None] | None = None,
) -> RunSummary:
    """Play every unfinished match of ``p`` into ``out``; ``on_start`` is called once ``out`` is
    checked and ``p.done`` known, ``on_rows`` sees each finished batch."""
    if backend not in _BACKENDS:
        raise InputError(f"unknown backend {backend!r}", hint="choose local, processes or ray")
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= max_workers():
        raise InputError(f"workers: must be a whole number from 1 to {max_workers()}, got {workers!r}")
    if backend == "ray" and ray_address:
        check_ray_address(ray_address)
    start = time.perf_counter()
    notes = prepare(p, out, resume)
    skipped = len(p.done)
    if on_start is not None:
        on_start()
    payloads = iter_batches(p, workers, batch_size)
    limits = p.config.limits
    spent = {"tokens": 0, "cost": 0.0}
    stopped: list[str] = []

    def stop() -> bool:
        if limits.llm_tokens is not None and spent["tokens"] >= limits.llm_tokens:
            stopped[:] = [f"the LLM token limit ({limits.llm_tokens:,}) was reached"]
        elif limits.cost is not None and spent["cost"] >= limits.cost:
            stopped[:] = [f"the spend limit ({limits.cost}) was reached"]
        return bool(stopped)

    played = 0
    env = share_local_models(p) if p.remaining else {}
    try:
        with ResultsWriter(out / RESULTS) as writer:
            for rows in _BACKENDS[backend](payloads, workers, stop, address=ray_address, env=env):
                writer.write(rows)
                played += len(rows)
                for r in rows:
                    spent["tokens"] += int(r.get("llm_tokens") or 0)
                    spent["cost"] += float(r.get("cost") or 0.0)
                if on_rows is not None:
                    on_rows(rows)
    except KeyboardInterrupt:
        if env:  # an interrupted run leaves no model server behind, even in a process that lives on
            from agents.llm.local import stop_shared

            stop_shared()
        raise
    return RunSummary(
        total=len(p.matches),
        skipped=skipped,
        played=played,
        stopped=stopped[0] if stopped else None,
        seconds=time.perf_counter() - start,
        notes=notes,
        out=out,
    )


def estimate(p: Plan, workers: int, sample: int = 5) -> tuple[float | None, int]:
    """Seconds the unfinished matches would take on ``workers`` workers, from timing up to
    ``sample`` of them here (LLM matches are not sampled: their time is the endpoint's), and how
    many matches involve an LLM. Counted per scenario (its seatings), not match by match, unless
    some are finished (``done``): then one pass over the matches tells which are left."""
    from game.tournament.kind_base import MatchContext
    from game.tournament.play import play_match

    kind = kind_for(p.config.kind)
    llm = {c.name for c in p.config.competitors if c.agent == "llm"}
    runs = len(p.config.seeds) * p.config.repetitions
    with_llm = 0
    plain_sids = []
    for sid, sc in p.scenarios.items():
        seated = [llm & set(seats.values()) for seats, _ in kind.seatings(p.config, sid, sc)]
        with_llm += sum(map(bool, seated)) * runs
        if not all(seated):
            plain_sids.append(sid)
    if p.done and llm:  # which of the unfinished involve an LLM: one pass over the matches
        with_llm = sum(1 for m in p.todo if llm & set(m.seats.values()))
    plain = p.remaining - with_llm
    if plain <= 0 or not plain_sids:
        return None, with_llm
    picks = []
    for sid in plain_sids[:: max(1, len(plain_sids) // sample)][:sample]:
        one = {sid: p.scenarios[sid]}
        picks += itertools.islice((m for m in iter_matches(p.config, one) if not llm & set(m.seats.values())), 1)
    ctx = MatchContext(p.config, p.scenarios)
    t = time.perf_counter()
    for m in picks:
        play_match(m, ctx)
    per = (time.perf_counter() - t) / len(picks)
    return per * plain / max(1, workers), with_llm
