"""The negotiation kind's report data: scenes from ``scenarios.json``, outcome points for the
utility scatter, and the comparison with human outcomes, from negotiation rows. No plotting here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from game.core.errors import InputError

SCATTER_SCENARIOS = 4  # utility scatters for this many scenarios (the ones with most matches)


class Scenes:
    """Lazily parsed and analysed negotiation scenes of ``scenarios.json``."""

    def __init__(self, scenarios: Mapping[str, Any]):
        self.scenarios = scenarios
        self._analysis: dict[str, Any] = {}
        self.notes: list[str] = []

    def human(self, sid: str) -> dict | None:
        entry = self.scenarios.get(sid)
        h = entry.get("human") if isinstance(entry, dict) else None
        return h if isinstance(h, dict) else None

    def analysis(self, sid: str):
        """The scene's :class:`NegotiationAnalysis`, or None (with a note) if unusable."""
        if sid in self._analysis:
            return self._analysis[sid]
        result = None
        entry = self.scenarios.get(sid)
        scene = entry.get("scene") if isinstance(entry, dict) else None
        if scene is not None:
            try:
                from game.negotiation.metrics import analyse
                from game.negotiation.spec import NegotiationScene

                parsed = NegotiationScene.model_validate(scene)
                result = analyse(parsed)
                if len(result.parties) != 2:
                    self.notes.append(f"scenario {sid!r}: {len(result.parties)} parties, not 2 - not plotted")
                    result = None
            except (InputError, ValueError, TypeError, KeyError, AttributeError) as e:
                first = str(e).splitlines()[0] if str(e) else type(e).__name__
                self.notes.append(f"scenario {sid!r}: scene not usable ({first[:100]})")
        self._analysis[sid] = result
        return result


def _index(analysis, outcome: Any) -> int | None:
    if not isinstance(outcome, dict):
        return None
    try:
        return analysis.space.index(outcome)
    except (KeyError, TypeError):
        return None


def outcome_metrics(analysis, agreement: bool | None, outcome: Any):
    """metrics.evaluate of an agreement's terms or of disagreement; None if the terms are
    not a complete offer of the scene."""
    if agreement:
        k = _index(analysis, outcome)
        return None if k is None else analysis.evaluate(k)
    return analysis.evaluate(None)


@dataclass
class ScatterData:
    scenario: str
    title: str
    parties: tuple[str, str]
    cloud: list[tuple[float, float]]  # every outcome (omitted for huge spaces)
    frontier: list[tuple[float, float]]  # Pareto frontier, sorted by the first party's utility
    reservation: tuple[float, float]
    points: dict[str, list[tuple[float, float, bool]]]  # "x-comp / y-comp" -> (u0, u1, agreed)
    human: list[tuple[float, float]] = field(default_factory=list)
    matches: int = 0


def _seat_order(row: dict, parties: Sequence[str]) -> list[dict]:
    seats = row["seats"]
    by_role = {s["role"]: s for s in seats}
    if all(p in by_role for p in parties):
        return [by_role[p] for p in parties]
    return list(seats)


def scatter_data(rows: Sequence[dict], scenes: Scenes, *, limit: int = SCATTER_SCENARIOS) -> list[ScatterData]:
    """Outcome points of the ``limit`` scenarios with most matches (ties by id), from negotiation rows."""
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["scenario"]] = counts.get(r["scenario"], 0) + 1
    out = []
    for sid in sorted(counts, key=lambda s: (-counts[s], s)):
        if len(out) >= limit:
            break
        a = scenes.analysis(sid)
        if a is None:
            continue
        M = a.matrix
        front = sorted((float(M[k, 0]), float(M[k, 1])) for k in a.frontier)
        cloud = [(float(u0), float(u1)) for u0, u1 in M[:, :2]] if len(M) <= 20000 else []
        res = (float(a.reservations[0]), float(a.reservations[1]))
        pts: dict[str, list[tuple[float, float, bool]]] = {}
        for r in sorted((r for r in rows if r["scenario"] == sid), key=lambda r: r["id"]):
            seats = _seat_order(r, a.parties)
            label = " / ".join(s["competitor"] for s in seats[:2])
            k = _index(a, r["outcome"]) if r["agreement"] else None
            if k is not None:
                p = (float(M[k, 0]), float(M[k, 1]), True)
            elif r["agreement"] and all(s.get("utility") is not None for s in seats[:2]) and len(seats) >= 2:
                p = (float(seats[0]["utility"]), float(seats[1]["utility"]), True)
            else:
                p = (res[0], res[1], False)
            pts.setdefault(label, []).append(p)
        human = []
        h = scenes.human(sid)
        if h is not None:
            m = outcome_metrics(a, h.get("agreement"), h.get("outcome"))
            if m is not None:
                human.append((m.utilities[0], m.utilities[1]))
        title = getattr(getattr(a, "space", None), "issues", ())
        out.append(
            ScatterData(
                sid,
                f"{sid} ({len(title)} issues, {a.space.size} outcomes)",
                (a.parties[0], a.parties[1]),
                cloud,
                front,
                res,
                pts,
                human,
                counts[sid],
            )
        )
    return out


@dataclass
class HumanRow:
    who: str
    games: int
    agreement: float | None
    joint_utility: float | None
    pareto_share: float | None


def _avg(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def human_comparison(rows: Sequence[dict], scenes: Scenes, competitors: Sequence[str]) -> tuple[list[HumanRow], int]:
    """Humans' agreement rate, mean joint utility (sum of both utilities; reservations on no
    deal) and share of Pareto-optimal outcomes over the scenarios that carry a human outcome,
    beside every competitor's over its matches (negotiation ``rows``) in those same scenarios.
    Returns the rows (humans first) and the number of scenarios used; no rows when no scenario
    has one."""
    used: list[str] = []
    agree: list[float] = []
    joint: list[float] = []
    pareto: list[float] = []
    for sid in sorted(scenes.scenarios):
        h = scenes.human(sid)
        if h is None:
            continue
        a = scenes.analysis(sid)
        agreed = h.get("agreement")
        if not isinstance(agreed, bool):
            scenes.notes.append(f"scenario {sid!r}: human outcome without an 'agreement' flag - skipped")
            continue
        used.append(sid)
        agree.append(float(agreed))
        m = outcome_metrics(a, agreed, h.get("outcome")) if a is not None else None
        if m is not None:
            joint.append(m.social_welfare)
            pareto.append(float(m.pareto_optimal))
        else:
            utils = h.get("utilities")
            if (
                isinstance(utils, dict)
                and utils
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in utils.values())
            ):
                joint.append(float(sum(utils.values())))
    if not used:
        return [], 0
    out = [HumanRow("humans", len(used), _avg(agree), _avg(joint), _avg(pareto))]
    chosen = set(used)
    per: dict[str, tuple[list, list, list]] = {c: ([], [], []) for c in competitors}
    for r in sorted(rows, key=lambda r: r["id"]):
        if r["scenario"] not in chosen or r["agreement"] is None:
            continue
        a = scenes.analysis(r["scenario"])
        m = outcome_metrics(a, r["agreement"], r["outcome"]) if a is not None else None
        for comp in dict.fromkeys(s["competitor"] for s in r["seats"]):
            ag, jo, pa = per.setdefault(comp, ([], [], []))
            ag.append(float(r["agreement"]))
            if m is not None:
                jo.append(m.social_welfare)
                pa.append(float(m.pareto_optimal))
            elif r["welfare"] is not None:
                jo.append(float(r["welfare"]))
    for comp, (ag, jo, pa) in per.items():
        if ag:
            out.append(HumanRow(comp, len(ag), _avg(ag), _avg(jo), _avg(pa)))
    return out, len(used)
