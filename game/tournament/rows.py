"""The schema of a tournament's result rows, and reading ``results.jsonl`` with located errors.

``validate_row`` checks one row (the fields ``game.tournament.play`` writes); ``read_results``
reads a results file through ``game.tournament.results.ResultLines`` (the one reader the runner's
``--resume`` uses too) and validates every row, naming ``file:line`` and the field when one is bad.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from game.core.errors import InputError, did_you_mean
from game.tournament.kinds import KINDS

# --- row validation ---------------------------------------------------------------

_STR, _INT, _NUM, _BOOL, _DICT, _LIST = "string", "integer", "number", "boolean", "object", "list"
# top-level field -> (type, nullable)
_ROW_FIELDS: dict[str, tuple[str, bool]] = {
    "id": (_STR, False),
    "kind": (_STR, False),
    "scenario": (_STR, False),
    "rep": (_INT, False),
    "seed": (_INT, False),
    "group": (_STR, False),
    "status": (_STR, False),
    "agreement": (_BOOL, True),
    "outcome": (_DICT, True),
    "rounds": (_INT, True),
    "seats": (_LIST, False),
    "welfare": (_NUM, True),
    "pareto_distance": (_NUM, True),
    "nash_distance": (_NUM, True),
    "ks_distance": (_NUM, True),
    "llm_calls": (_INT, True),
    "llm_tokens": (_INT, True),
    "cost": (_NUM, True),
    "wall_time": (_NUM, True),
}
# top-level fields rows written before them lack
_ROW_OPTIONAL: dict[str, str] = {"llm_seconds": _NUM}
_SEAT_REQUIRED: dict[str, str] = {"role": _STR, "competitor": _STR, "points": _NUM}
_SEAT_OPTIONAL: dict[str, str] = {
    "utility": _NUM,
    "reservation": _NUM,
    "advantage": _NUM,
    "won": _BOOL,
    "score": _NUM,
    "invalid": _NUM,
    "false_leads": _NUM,
    "llm_calls": _NUM,
    "llm_tokens": _NUM,
    "llm_prompt_tokens": _NUM,
    "llm_completion_tokens": _NUM,
    "llm_seconds": _NUM,
    "llm_repairs": _NUM,
    "cost": _NUM,
    # debate: the decision right (null: the task has no known right one) and the debate's metrics
    "correct": _BOOL,
    "redundancy": _NUM,
    "effective_ratio": _NUM,
    "tokens_per_member_round": _NUM,
    "recall": _NUM,
}


def _type_ok(value: Any, kind: str) -> bool:
    if kind == _STR:
        return isinstance(value, str) and value != ""
    if kind == _BOOL:
        return isinstance(value, bool)
    if kind == _DICT:
        return isinstance(value, dict)
    if kind == _LIST:
        return isinstance(value, list)
    if isinstance(value, bool):
        return False
    if kind == _INT:
        return isinstance(value, int)
    return isinstance(value, (int, float)) and math.isfinite(value)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _where(row: Any, where: str | None, index: int | None) -> str:
    if where:
        return where
    rid = row.get("id") if isinstance(row, dict) else None
    label = f"row {index + 1}" if index is not None else "row"
    return f"{label} (id {rid!r})" if isinstance(rid, str) else label


def validate_row(row: Any, *, where: str | None = None, index: int | None = None) -> dict:
    """Check one results row against the fixed schema; returns it or raises a located
    :class:`InputError` (``where`` names the row, e.g. ``results.jsonl:12``)."""
    loc = _where(row, where, index)
    if not isinstance(row, dict):
        raise InputError(
            f"{loc}: a result row must be a JSON object, got {type(row).__name__}",
            hint="each line of results.jsonl is one match as a JSON object",
        )
    for name, (kind, nullable) in _ROW_FIELDS.items():
        if name not in row:
            raise InputError(
                f"{loc}: field {name!r} is missing", hint=did_you_mean(name, [k for k in row if isinstance(k, str)])
            )
        value = row[name]
        if value is None and nullable:
            continue
        if not _type_ok(value, kind):
            null = " or null" if nullable else ""
            raise InputError(
                f"{loc}: field {name!r} must be a{'n' if kind[0] in 'aeio' else ''} {kind}{null}, got {_short(value)}"
            )
    for name, kind in _ROW_OPTIONAL.items():
        value = row.get(name)
        if value is not None and not _type_ok(value, kind):
            raise InputError(f"{loc}: field {name!r} must be a {kind} or null, got {_short(value)}")
    if row["kind"] not in KINDS:
        raise InputError(
            f"{loc}: field 'kind' is {_short(row['kind'])}, not one of {', '.join(KINDS)}",
            hint=did_you_mean(row["kind"], KINDS),
        )
    for name in ("rep", "rounds", "llm_calls", "llm_tokens", "llm_seconds"):
        if row.get(name) is not None and row[name] < 0:
            raise InputError(f"{loc}: field {name!r} must not be negative, got {row[name]!r}")
    if not row["seats"]:
        raise InputError(f"{loc}: field 'seats' is empty", hint="every match has at least one seat")
    unscored_ok = KINDS[row["kind"]].unscored_games  # seats may have null points (a game that scores nobody)
    for i, seat in enumerate(row["seats"]):
        path = f"seats[{i}]"
        if not isinstance(seat, dict):
            raise InputError(f"{loc}: field {path!r} must be an object, got {_short(seat)}")
        for name, kind in _SEAT_REQUIRED.items():
            if name not in seat:
                raise InputError(f"{loc}: field '{path}.{name}' is missing")
            if name == "points" and seat[name] is None and unscored_ok:
                continue
            if not _type_ok(seat[name], kind):
                raise InputError(f"{loc}: field '{path}.{name}' must be a {kind}, got {_short(seat[name])}")
        for name, kind in _SEAT_OPTIONAL.items():
            value = seat.get(name)
            if value is not None and not _type_ok(value, kind):
                raise InputError(f"{loc}: field '{path}.{name}' must be a {kind} or null, got {_short(value)}")
    return row


def validate_rows(rows: Iterable[Any], wheres: Sequence[str] | None = None) -> list[dict]:
    """Validate every row; also reject duplicate ids and groups that mix kinds."""
    out: list[dict] = []
    seen: dict[str, int] = {}
    group_kind: dict[str, tuple[str, int]] = {}
    for i, row in enumerate(rows):
        where = wheres[i] if wheres is not None else None
        validate_row(row, where=where, index=i)
        loc = _where(row, where, i)
        rid = row["id"]
        if rid in seen:
            raise InputError(
                f"{loc}: duplicate match id {rid!r} (also row {seen[rid] + 1})",
                hint="every match is recorded once; remove the repeated line",
            )
        seen[rid] = i
        first = group_kind.setdefault(row["group"], (row["kind"], i))
        if first[0] != row["kind"]:
            raise InputError(
                f"{loc}: field 'kind' is {row['kind']!r} but group {row['group']!r} "
                f"is {first[0]!r} (row {first[1] + 1})"
            )
        out.append(row)
    return out


# --- reading results.jsonl ----------------------------------------------------------


class ResultRows(list):
    """The rows of a results file (a list of dicts) plus ``notes`` about what was skipped."""

    def __init__(self, rows: Iterable[dict] = (), notes: Iterable[str] = ()):
        super().__init__(rows)
        self.notes: list[str] = list(notes)


def read_results(path: str | Path, limit: int | None = None) -> ResultRows:
    """Read and validate ``results.jsonl`` (``game.tournament.results.ResultLines``: a regular
    file of at most ``limit`` bytes, by default ``results_limit()``). Blank lines are skipped. A
    torn last line (a crash mid-write: not valid JSON, with or without a newline after it) is
    skipped and described in ``.notes``; a corrupt line anywhere else, or valid JSON that is not
    a valid row, raises :class:`InputError` with ``file:line``. A whole last row missing its
    newline is kept."""
    from game.tournament.results import ResultLines, results_limit

    path = Path(path)
    lines = ResultLines(path, results_limit() if limit is None else limit)
    numbers, rows = [], []
    for n, row in lines:
        numbers.append(n)
        rows.append(row)
    notes = []
    if lines.torn:
        n, _, torn = lines.torn
        notes.append(
            f"{path.name}:{n}: skipped a torn last line ({len(torn)} bytes; "
            "an interrupted write) - that match is not counted"
        )
    validate_rows(rows, [f"{path}:{n}" for n in numbers])
    return ResultRows(rows, notes)
