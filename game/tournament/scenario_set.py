"""Scenario sets: negotiation scenes imported from public datasets, with what people did in them.

A scenario set is one JSON file (``save_set`` / ``load_set``)::

    {
      "format": "parley-scenario-set",      # fixed: what the file is
      "version": 1,
      "source": "dond" | "casino" | "genius",
      "origin": "train.txt",                 # the file or folder it was imported from
      "notes": "...",                        # how it was imported (normalisation, rules)
      "skipped": ["train.txt:12: ..."],      # malformed records left out (import with skip_bad)
      "scenarios": [
        {
          "id": "dond-17",                   # stable: derived from the source record
          "origin": "train.txt:17,18",       # where in the source it came from
          "scene": {NegotiationScene},       # parties "a" and "b"; "a" moves first
          "human": {                         # what the people did, or null (GENIUS)
            "agreement": true,
            "outcome": {"book": "1", ...},   # the agreed offer in the scene's names; null on no deal
            "utilities": {"a": 0.7, "b": 0.5},  # each side's normalised utility (reservation on no deal)
            "points": {"a": 7, "b": 5},      # the dataset's own score, when it has one
            "ending": "agreement"            # the dataset's word for how it ended
          }
        }
      ]
    }

Every scenario is checked when built and when loaded: the parties are exactly ``a`` and ``b``
with weights and values, ``a`` opens, utilities can be built (``utilities_for``), and a human
outcome is a complete offer of the scene whose utilities are the scene's own (on no deal: the
reservations). ``human_summary`` reports the humans' agreement rate, joint utility and Pareto
share, for a tournament report to show beside the agents'.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from game.core.errors import InputError
from game.core.text import shown
from game.negotiation.spec import NegotiationScene

FORMAT = "parley-scenario-set"
VERSION = 1
SOURCES = ("dond", "casino", "genius")
PARTIES = ("a", "b")
DEFAULT_DEADLINE = 20
"""Rounds a scene allows when the dataset sets none (the same as ``random_scenes``)."""
MAX_SET_BYTES = 32 * 1024 * 1024
"""The largest scenario-set (or dataset) file read. A set is decoded and validated whole: a 60 MB set took
0.95 GB of memory and 24 s (``tournament --dry-run``), so the limit keeps that near half a GB. A
Deal or No Deal scenario takes about 850 bytes: 32 MB hold some 37,000."""
UTILITY_TOLERANCE = 1e-9
"""How far a stored human utility may be from the scene's own utility of that outcome."""

Unit = Annotated[float, Field(ge=0.0, le=1.0)]
ScenarioId = Annotated[
    str, Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$", max_length=200, description="stable id, e.g. dond-17")
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class HumanOutcome(_Model):
    """What the people in the dataset did with a scenario."""

    agreement: bool
    outcome: dict[str, str] | None = Field(
        None, description="the agreed offer, issue -> value in the scene's names; null on no deal"
    )
    utilities: dict[str, Unit] | None = Field(
        None, description="each party's normalised utility (its reservation on no deal)"
    )
    points: dict[str, float] | None = Field(None, description="the dataset's own score per party, if any")
    ending: str = Field("", max_length=80, description="how it ended, in the dataset's terms")

    @model_validator(mode="after")
    def _outcome_iff_agreement(self) -> HumanOutcome:
        if self.agreement and self.outcome is None:
            raise ValueError("an agreement needs its outcome")
        if not self.agreement and self.outcome is not None:
            raise ValueError("no agreement, so the outcome must be null")
        if self.points is not None and not all(math.isfinite(v) for v in self.points.values()):
            raise ValueError("points must be finite numbers")
        return self


class ImportedScenario(_Model):
    """One scene from a dataset, with the humans' outcome when the dataset has one."""

    id: ScenarioId
    origin: str = Field("", max_length=2000, description="where in the source it came from")
    scene: NegotiationScene
    human: HumanOutcome | None = None

    @model_validator(mode="after")
    def _check(self) -> ImportedScenario:
        scene = self.scene
        if scene.trade is not None:
            raise ValueError("an imported scene cannot be a trade")
        ids = [p.id for p in scene.parties]
        if tuple(ids) != PARTIES:
            raise ValueError(f"parties must be 'a' and 'b', in that order (got {ids!r})")
        if scene.first not in (None, "a"):
            raise ValueError(f"party 'a' moves first (got first = {scene.first!r})")
        for p in scene.parties:
            if p.weights is None or p.values is None:
                raise ValueError(f"party {p.id!r} needs weights and values")
        utils = _utilities(scene)
        h = self.human
        if h is None:
            return self
        if h.outcome is not None:
            if set(h.outcome) != set(scene.issues):
                raise ValueError(
                    f"human outcome issues {sorted(h.outcome)!r} are not the scene's {sorted(scene.issues)!r}"
                )
            for issue, value in h.outcome.items():
                if value not in scene.issues[issue]:
                    raise ValueError(f"human outcome: {value!r} is not a value of issue {issue!r}")
        for name, table in (("utilities", h.utilities), ("points", h.points)):
            if table is not None and set(table) != set(PARTIES):
                raise ValueError(f"human {name} must be given for parties 'a' and 'b' (got {sorted(table)!r})")
        if h.utilities is not None:
            for pid, uf in utils.items():
                want = uf(h.outcome) if h.outcome is not None else uf.reservation
                if abs(h.utilities[pid] - want) > UTILITY_TOLERANCE:
                    what = "of the agreed outcome" if h.outcome is not None else "on no deal (the reservation)"
                    raise ValueError(
                        f"human utility of {pid!r} is {h.utilities[pid]!r}, but the scene gives {want!r} {what}"
                    )
        return self


class ScenarioSet(_Model):
    """Scenarios imported from one dataset file or folder."""

    format: Literal["parley-scenario-set"] = FORMAT
    version: Literal[1] = VERSION
    source: Literal["dond", "casino", "genius"]
    origin: str = Field("", max_length=2000, description="the file or folder imported")
    notes: str = Field("", max_length=20000, description="how the dataset was turned into scenes")
    skipped: list[str] = Field(default_factory=list, description="malformed records left out")
    scenarios: list[ImportedScenario]

    @model_validator(mode="after")
    def _unique_ids(self) -> ScenarioSet:
        seen: set[str] = set()
        for s in self.scenarios:
            if s.id in seen:
                raise ValueError(f"scenario id {s.id!r} appears twice")
            seen.add(s.id)
        return self

    def by_id(self, scenario_id: str) -> ImportedScenario:
        for s in self.scenarios:
            if s.id == scenario_id:
                return s
        raise KeyError(scenario_id)

    @property
    def scenes(self) -> list[NegotiationScene]:
        return [s.scene for s in self.scenarios]


def _utilities(scene: NegotiationScene) -> dict:
    """``utilities_for(scene)``, with its ``InputError`` turned into a validation error."""
    from game.negotiation.utility import utilities_for

    try:
        return utilities_for(scene)
    except InputError as e:
        raise ValueError(e.message) from None


# --- building scenes -----------------------------------------------------------------------


def split_scene(
    title: str,
    description: str,
    items: Sequence[tuple[str, int]],
    points_a: Sequence[int | float],
    points_b: Sequence[int | float],
    *,
    reservation_a: float = 0.0,
    reservation_b: float = 0.0,
    deadline: int = DEFAULT_DEADLINE,
) -> NegotiationScene:
    """A scene dividing piles of items (DoND, CaSiNo): one issue per item type, whose values are how
    many of it party ``a`` gets (``"0"`` .. ``"count"``); ``b`` gets the rest.

    Each party's utility is additive and equals its points / its maximum points exactly (up to the
    12-decimal rounding of ``game.negotiation.utility``): an issue's weight is its share of the
    party's maximum (``per-item points x count / max``) and a value's utility is the share of the pile
    the party gets (``k / count`` for ``a``, ``(count - k) / count`` for ``b``)."""
    issues = {name: [str(k) for k in range(count + 1)] for name, count in items}
    parties = []
    for pid, pts, res in (("a", points_a, reservation_a), ("b", points_b, reservation_b)):
        total = sum(p * c for p, (_, c) in zip(pts, items))
        weights, values = {}, {}
        for p, (name, count) in zip(pts, items):
            weights[name] = p * count / total if total else 0.0
            if count == 0:
                values[name] = {"0": 0.0}
            elif pid == "a":
                values[name] = {str(k): k / count for k in range(count + 1)}
            else:
                values[name] = {str(k): (count - k) / count for k in range(count + 1)}
        parties.append({"id": pid, "weights": weights, "values": values, "reservation": res})
    return NegotiationScene.model_validate(
        {
            "type": "negotiation",
            "title": title,
            "description": description,
            "issues": issues,
            "parties": parties,
            "deadline": deadline,
            "first": "a",
        }
    )


def scene_utilities(scene: NegotiationScene, outcome: Mapping[str, str] | None) -> dict[str, float]:
    """Each party's utility of ``outcome`` in ``scene`` (its reservation when ``outcome`` is None)."""
    from game.negotiation.utility import utilities_for

    return {pid: (uf(outcome) if outcome is not None else uf.reservation) for pid, uf in utilities_for(scene).items()}


_ID_BAD = re.compile(r"[^a-z0-9]+")


def as_id(name: str, taken: Iterable[str] = ()) -> str:
    """``name`` as a lower_snake identifier (``Id`` in the world spec), unique among ``taken``:
    "Number of Wind Turbines" -> "number_of_wind_turbines", "0000-0400" -> "i_0000_0400"."""
    base = _ID_BAD.sub("_", name.lower()).strip("_") or "issue"
    if not base[0].isalpha():
        base = "i_" + base
    base = base[:60]
    taken = set(taken)
    out, n = base, 2
    while out in taken:
        out, n = f"{base}_{n}", n + 1
    return out


def slug(text: str) -> str:
    """A piece of a scenario id: lower case letters, digits and dashes."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "x"


# --- reading and writing ---------------------------------------------------------------------


def save_set(path: str | Path, scenario_set: ScenarioSet) -> Path:
    """Write ``scenario_set`` to ``path`` as JSON, atomically (an old file is never half-replaced)."""
    from game.core.files import write_output

    path = Path(path)
    write_output(path, dumps_set(scenario_set), folders=True)  # --out may name a folder still to make
    return path


def dumps_set(scenario_set: ScenarioSet) -> str:
    """The file text: the set's fields one per line, then one scenario per line (compact JSON),
    so a large set stays small and line-diffable."""
    data = scenario_set.model_dump(mode="json")
    scenarios = data.pop("scenarios")
    head = [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in data.items()]
    body = ",\n".join("  " + json.dumps(s, separators=(",", ":")) for s in scenarios)
    return "{\n" + "\n".join(head) + '\n "scenarios": [\n' + body + ("\n" if body else "") + " ]\n}\n"


def load_set(path: str | Path) -> ScenarioSet:
    """Read a scenario set written by ``save_set``. Anything wrong with the file raises
    ``InputError`` saying where: ``FILE:LINE:COL`` for bad JSON, ``FILE: scenarios.3.scene...`` for
    a bad field (with the scenario's id when it has one)."""
    from game.core.files import read_text

    where = shown(str(path))
    text = read_text(path, limit=MAX_SET_BYTES, hint="give a scenario set written by `parley import`")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(
            f"{where}:{e.lineno}:{e.colno}: not JSON: {e.msg}", hint="give a scenario set written by `parley import`"
        ) from None
    except (ValueError, RecursionError) as e:  # too-long numbers, nesting beyond the parser's depth
        raise InputError(f"{where}: not usable JSON: {shown(str(e)[:200])}") from None
    except MemoryError:
        raise InputError(f"{where}: too large to hold in memory", hint="import fewer records") from None
    try:
        return parse_set(data, where)
    except MemoryError:
        raise InputError(f"{where}: too large to hold in memory", hint="import fewer records") from None


def parse_set(data: Any, where: str = "scenario set") -> ScenarioSet:
    """Validate decoded JSON as a ``ScenarioSet``; ``InputError`` names ``where`` and the field."""
    if not isinstance(data, dict):
        raise InputError(
            f"{where}: a scenario set is a JSON object, not {_kind(data)}",
            hint="give a scenario set written by `parley import`",
        )
    if data.get("format", FORMAT) != FORMAT:
        raise InputError(
            f"{where}: format: {shown(repr(data.get('format'))[:80])} is not {FORMAT!r}",
            hint="give a scenario set written by `parley import`",
        )
    try:
        return ScenarioSet.model_validate(data)
    except ValidationError as e:
        raise InputError(f"{where}: {_first_problem(e, data)}") from None
    except RecursionError:
        raise InputError(f"{where}: nested too deeply") from None


def _kind(value: Any) -> str:
    return {
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _first_problem(e: ValidationError, data: Any) -> str:
    errors = e.errors(include_url=False)
    err = errors[0]
    loc = list(err.get("loc", ()))
    path = ".".join(str(p) for p in loc) or "(top level)"
    label = ""
    if len(loc) >= 2 and loc[0] == "scenarios" and isinstance(loc[1], int):
        try:
            sid = data["scenarios"][loc[1]].get("id")
        except (KeyError, IndexError, TypeError, AttributeError):
            sid = None
        if isinstance(sid, str):
            label = f" (scenario {shown(sid[:80])!r})"
    msg = err.get("msg", "invalid")
    if err.get("type") == "value_error" and msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    return f"{shown(path)}{label}: {shown(msg[:300])}{more}"


# --- the humans' record ------------------------------------------------------------------------


def human_summary(scenario_set: ScenarioSet) -> dict[str, Any]:
    """How the people in the dataset did, for a tournament report to show beside the agents:

    * ``scenarios``: how many scenarios; ``with_human``: how many have a human outcome;
    * ``agreements`` and ``agreement_rate`` (agreements / with_human; None without any);
    * ``mean_joint_utility``: mean of ``u_a + u_b`` over the scenarios with a human outcome,
      0 on no deal; ``mean_joint_utility_with_reservations`` counts no deal as the sum of the
      reservations instead (they differ only where reservations are above 0, e.g. CaSiNo);
    * ``mean_utility``: each party's mean utility, 0 on no deal;
    * ``pareto_optimal_share``: the share of agreements no outcome dominates
      (``game.negotiation.metrics``); None without agreements;
    * ``mean_distance_to_frontier`` over agreements; None without agreements.
    """
    from game.negotiation.metrics import analyse

    n_human = n_agree = n_pareto = 0
    joint = joint_res = dist = 0.0
    per_party = {p: 0.0 for p in PARTIES}
    for s in scenario_set.scenarios:
        h = s.human
        if h is None:
            continue
        n_human += 1
        m = analyse(s.scene).evaluate(h.outcome if h.agreement else None)
        if h.agreement:
            n_agree += 1
            joint += m.social_welfare
            joint_res += m.social_welfare
            n_pareto += m.pareto_optimal
            dist += m.distance_to_frontier
            for pid, u in zip(m.parties, m.utilities):
                per_party[pid] += u
        else:
            joint_res += sum(m.reservations)
    return {
        "source": scenario_set.source,
        "scenarios": len(scenario_set.scenarios),
        "with_human": n_human,
        "agreements": n_agree,
        "agreement_rate": n_agree / n_human if n_human else None,
        "mean_joint_utility": joint / n_human if n_human else None,
        "mean_joint_utility_with_reservations": joint_res / n_human if n_human else None,
        "mean_utility": {p: v / n_human for p, v in per_party.items()} if n_human else None,
        "pareto_optimal_share": n_pareto / n_agree if n_agree else None,
        "mean_distance_to_frontier": dist / n_agree if n_agree else None,
    }
