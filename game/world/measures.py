"""Checks on a world's units, clock and relation kinds (``[units]``, ``[clock]``, ``kind``).

A unit's ``base`` must be a declared unit and bases must not loop; when a world
declares units, a relation's ``unit`` must name one of them (by id or alias); a
relation of kind "time", "entity" or "text" takes no unit or range. Problems name
the table and field (``units.penny.base``) as ``game.world.checks`` reports them.
"""

from __future__ import annotations

from collections.abc import Iterator

from game.core.claims import canonical
from game.core.errors import Problem, did_you_mean
from game.world.spec import WorldSpec


def unit_names(w: WorldSpec) -> dict[str, str]:
    """Every word that names a declared unit (its id and aliases, compared loosely) -> unit id."""
    out: dict[str, str] = {}
    for uid, u in w.units.items():
        for n in (uid, *u.aliases):
            out.setdefault(canonical(n), uid)
    return out


def unit_problems(w: WorldSpec) -> Iterator[Problem]:
    """Every problem with the units, the clock names and what relations say of their values."""
    names: dict[str, str] = {}
    for uid, u in w.units.items():
        for i, n in enumerate((uid, *u.aliases)):
            other = names.setdefault(canonical(n), uid)
            if other != uid:
                yield Problem(
                    f"{n!r} also names unit {other!r}",
                    path=f"units.{uid}" + (f".aliases[{i - 1}]" if i else ""),
                    hint="a word may name one unit only",
                )
        if u.base is None and u.factor != 1.0:
            yield Problem(
                f"factor {u.factor:g} without a base",
                path=f"units.{uid}.factor",
                hint="write base = the unit it converts to",
            )
        if u.base is not None and u.base not in w.units:
            yield Problem(
                f"unknown unit {u.base!r}",
                path=f"units.{uid}.base",
                hint=did_you_mean(u.base, list(w.units)) or "declare it under [units] first",
            )
    yield from _cycles(w)
    for rid, r in w.relations.items():
        kind = r.kind
        if kind in ("time", "entity", "text") and (r.unit is not None or r.range is not None):
            field = "unit" if r.unit is not None else "range"
            yield Problem(
                f"a relation of kind {kind!r} takes no {field}",
                path=f"relations.{rid}.{field}",
                hint='leave it out, or write kind = "number"',
            )
        elif w.units and r.unit is not None and canonical(r.unit) not in names:
            yield Problem(
                f"unknown unit {r.unit!r}",
                path=f"relations.{rid}.unit",
                hint=did_you_mean(r.unit, list(w.units)) or f"declared units: {', '.join(sorted(w.units))}",
            )


def _cycles(w: WorldSpec) -> Iterator[Problem]:
    """A unit whose chain of bases comes back to it (each loop reported once, at its first unit)."""
    reported: set[str] = set()
    for uid in w.units:
        seen = [uid]
        nxt = w.units[uid].base
        while nxt is not None and nxt in w.units and nxt not in seen:
            seen.append(nxt)
            nxt = w.units[nxt].base
        if nxt is not None and nxt in seen:
            loop = seen[seen.index(nxt) :]
            if not reported & set(loop):
                reported |= set(loop)
                yield Problem(
                    f"the bases of units loop: {' -> '.join([*loop, nxt])}",
                    path=f"units.{loop[0]}.base",
                    hint="one unit of the chain must have no base",
                )
