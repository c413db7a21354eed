"""CaSiNo (Chawla et al. 2021) campsite negotiations as scenarios.

The dataset (``data/casino.json`` and the splits) is a JSON list of dialogues::

    {"dialogue_id": 548,
     "chat_logs": [{"text": "...", "task_data": {}, "id": "mturk_agent_2"}, ...,
                   {"text": "Submit-Deal", "task_data": {"issue2youget": {"Food": "2", ...},
                                                         "issue2theyget": {"Food": "1", ...}},
                    "id": "mturk_agent_2"},
                   {"text": "Accept-Deal", "task_data": {"data": "accept_deal"}, "id": "mturk_agent_1"}],
     "participant_info": {"mturk_agent_1": {"value2issue": {"High": "Water", "Medium": "Food",
                                                            "Low": "Firewood"}, ...}, ...}}

**Scene.** Issues ``food``, ``water``, ``firewood``, 3 packages of each; a value is how many party
``a`` gets (``"0"`` .. ``"3"``), ``b`` gets the rest. Party ``a`` is the agent who wrote first.
Points per package: 5 for the agent's High priority, 4 for Medium, 3 for Low, so the most is
3 x (5 + 4 + 3) = 36; a party's utility is its points / 36, exactly (``split_scene``).

**Walk-away.** The dataset's README says that when someone walks away both get 5 points (one High
item): that is each party's reservation, 5/36 (``walk_away_points``; pass 0 for no-deal-is-0).

**Human outcome.** An agreement when the log has an ``Accept-Deal`` of the last ``Submit-Deal``
(``issue2youget`` is the submitter's share, ``issue2theyget`` the other's); ending ``agreement``.
``Walk-Away`` ends it with no deal (ending ``walk_away``); a log that ends without either (say,
on a ``Reject-Deal``) is no deal too (ending ``unfinished``). On no deal the utilities are the
reservations and the points the walk-away points.

The id is ``casino-<dialogue_id>`` (``casino-r<record>`` when a record has none).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from game.core.errors import InputError
from game.core.text import shown
from game.negotiation.spec import NegotiationScene
from game.tournament.scenario_set import (
    DEFAULT_DEADLINE,
    MAX_SET_BYTES,
    HumanOutcome,
    ImportedScenario,
    ScenarioSet,
    scene_utilities,
    split_scene,
)

ISSUES = ("food", "water", "firewood")
COUNT = 3
PRIORITY_POINTS = {"high": 5, "medium": 4, "low": 3}
MAX_POINTS = COUNT * sum(PRIORITY_POINTS.values())  # 36
WALK_AWAY_POINTS = 5
NOTES = (
    "CaSiNo (Chawla et al. 2021). Issues food/water/firewood, 3 packages each: how many party a "
    "gets; b gets the rest. Points per package High 5, Medium 4, Low 3; utility = points / 36. "
    "Reservation = the walk-away points (5 each, from the dataset's README) / 36. a = the agent "
    "who wrote first."
)
HINT = "give CaSiNo's casino.json (a JSON list of dialogues)"


class _Bad(Exception):
    """A malformed record: the message says where inside the record and what is wrong."""


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool):
        raise _Bad(f"{where}: {value!r} is not a count")
    if isinstance(value, int):
        n = value
    elif isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() and len(value) < 5:
        n = int(value.strip())
    elif isinstance(value, float) and value.is_integer():
        n = int(value)
    else:
        raise _Bad(f"{where}: {shown(repr(value)[:40])} is not a count 0..{COUNT}")
    if not 0 <= n <= COUNT:
        raise _Bad(f"{where}: {n} is not a count 0..{COUNT}")
    return n


def _share(task: Any, key: str, where: str) -> dict[str, int]:
    table = task.get(key) if isinstance(task, dict) else None
    if not isinstance(table, dict):
        raise _Bad(f"{where}.{key}: missing or not an object")
    out: dict[str, int] = {}
    for name, value in table.items():
        issue = name.strip().lower() if isinstance(name, str) else None
        if issue not in ISSUES:
            raise _Bad(f"{where}.{key}: unknown issue {shown(repr(name)[:40])} (expected Food, Water, Firewood)")
        if issue in out:
            raise _Bad(f"{where}.{key}: issue {name!r} given twice")
        out[issue] = _count(value, f"{where}.{key}.{name}")
    missing = [i for i in ISSUES if i not in out]
    if missing:
        raise _Bad(f"{where}.{key}: no count for {', '.join(missing)}")
    return out


def _priorities(info: Any, agent: str) -> dict[str, int]:
    """issue -> points per package, from ``value2issue``."""
    where = f"participant_info.{agent}.value2issue"
    table = info.get("value2issue") if isinstance(info, dict) else None
    if not isinstance(table, dict):
        raise _Bad(f"{where}: missing or not an object")
    out: dict[str, int] = {}
    for level, name in table.items():
        lv = level.strip().lower() if isinstance(level, str) else None
        if lv not in PRIORITY_POINTS:
            raise _Bad(f"{where}: unknown priority {shown(repr(level)[:40])} (expected High, Medium, Low)")
        issue = name.strip().lower() if isinstance(name, str) else None
        if issue not in ISSUES:
            raise _Bad(f"{where}.{level}: unknown issue {shown(repr(name)[:40])} (expected Food, Water, Firewood)")
        if issue in out:
            raise _Bad(f"{where}: issue {name!r} has two priorities")
        out[issue] = PRIORITY_POINTS[lv]
    if len(out) != len(ISSUES):
        raise _Bad(f"{where}: needs High, Medium and Low, one issue each")
    return out


# a submitted deal: (submitter, issue2youget, issue2theyget, index of its Submit-Deal in the log)
_Deal = tuple[str, dict[str, int], dict[str, int], int]


def _dialogue_id(rec: dict) -> int | str | None:
    """The record's ``dialogue_id`` (None when it has none), checked to be a number."""
    did = rec.get("dialogue_id")
    if isinstance(did, bool) or not (
        did is None
        or isinstance(did, int)
        or (isinstance(did, str) and did.isascii() and did.isdigit() and len(did) < 20)
    ):
        raise _Bad(f"dialogue_id: {shown(repr(did)[:40])} is not a number")
    return did


def _participants(rec: dict) -> tuple[dict, list[str], dict[str, dict[str, int]]]:
    """``participant_info``, its two agents in order and each agent's points per package by issue."""
    info = rec.get("participant_info")
    if not isinstance(info, dict) or len(info) != 2 or not all(isinstance(k, str) for k in info):
        raise _Bad("participant_info: needs exactly two agents")
    agents = sorted(info)
    return info, agents, {agent: _priorities(info[agent], agent) for agent in agents}


def _read_log(rec: dict, info: dict, agents: list[str]) -> tuple[str | None, _Deal | None, str]:
    """(who wrote first, the accepted deal or None, the ending) of the record's chat log."""
    logs = rec.get("chat_logs")
    if not isinstance(logs, list):
        raise _Bad("chat_logs: missing or not a list")
    first: str | None = None
    deal: _Deal | None = None
    accepted: _Deal | None = None
    ending = "unfinished"
    for k, entry in enumerate(logs):
        if not isinstance(entry, dict):
            raise _Bad(f"chat_logs[{k}]: not an object")
        who, text = entry.get("id"), entry.get("text")
        if not isinstance(who, str) or who not in info:
            raise _Bad(f"chat_logs[{k}].id: {shown(repr(who)[:40])} is not one of the participants {agents!r}")
        if not isinstance(text, str):
            raise _Bad(f"chat_logs[{k}].text: missing or not a string")
        if first is None:
            first = who
        if text == "Submit-Deal":
            task = entry.get("task_data")
            where = f"chat_logs[{k}].task_data"
            deal = (who, _share(task, "issue2youget", where), _share(task, "issue2theyget", where), k)
        elif text == "Accept-Deal":
            if deal is None:
                raise _Bad(f"chat_logs[{k}]: Accept-Deal with no deal submitted")
            accepted, ending = deal, "agreement"
            break
        elif text == "Walk-Away":
            ending = "walk_away"
            break
    return first, accepted, ending


def _outcome(accepted: _Deal | None, a: str) -> dict[str, str] | None:
    """The accepted deal as an outcome (how many of each issue party ``a`` gets), None for no deal."""
    if accepted is None:
        return None
    submitter, you, they, k = accepted
    for issue in ISSUES:
        if you[issue] + they[issue] != COUNT:
            raise _Bad(
                f"chat_logs[{k}].task_data: {issue} shares {you[issue]} + {they[issue]} do not add up to {COUNT}"
            )
    a_gets = you if submitter == a else they
    return {issue: str(a_gets[issue]) for issue in ISSUES}


def _human(
    scene: NegotiationScene,
    outcome: dict[str, str] | None,
    pa: list[int],
    pb: list[int],
    walk_away_points: int,
    ending: str,
) -> HumanOutcome:
    """What the people got: the deal's points, or the walk-away points on no deal."""
    if outcome is not None:
        got = {
            "a": sum(p * int(outcome[i]) for p, i in zip(pa, ISSUES)),
            "b": sum(p * (COUNT - int(outcome[i])) for p, i in zip(pb, ISSUES)),
        }
    else:
        got = {"a": walk_away_points, "b": walk_away_points}
    return HumanOutcome(
        agreement=outcome is not None,
        outcome=outcome,
        utilities=scene_utilities(scene, outcome),
        points={p: float(v) for p, v in got.items()},
        ending=ending,
    )


def _record(rec: Any, walk_away_points: int, deadline: int, name: str, number: int):
    """(id, origin, scene, human) of one dialogue record."""
    if not isinstance(rec, dict):
        raise _Bad("a dialogue is a JSON object")
    did = _dialogue_id(rec)
    sid = f"casino-{int(did)}" if did is not None else f"casino-r{number}"
    info, agents, points = _participants(rec)
    first, accepted, ending = _read_log(rec, info, agents)
    a = first if first is not None else agents[0]
    b = agents[1] if a == agents[0] else agents[0]
    outcome = _outcome(accepted, a)
    pa = [points[a][i] for i in ISSUES]
    pb = [points[b][i] for i in ISSUES]
    res = walk_away_points / MAX_POINTS
    scene = split_scene(
        f"CaSiNo {did if did is not None else 'r' + str(number)}",
        "Share out 3 food, 3 water and 3 firewood packages. Each issue is how many party a gets; b gets "
        f"the rest. Points per package: a {dict(zip(ISSUES, pa))}, b {dict(zip(ISSUES, pb))}; walking "
        f"away gives each {walk_away_points}.",
        [(i, COUNT) for i in ISSUES],
        pa,
        pb,
        reservation_a=res,
        reservation_b=res,
        deadline=deadline,
    )
    human = _human(scene, outcome, pa, pb, walk_away_points, ending)
    origin = f"{name} record {number}" + (f" (dialogue_id {did})" if did is not None else "") + f"; a = {a}, b = {b}"
    return sid, origin, scene, human


def import_casino(
    path: str | Path,
    *,
    skip_bad: bool = False,
    walk_away_points: int = WALK_AWAY_POINTS,
    deadline: int = DEFAULT_DEADLINE,
) -> ScenarioSet:
    """Read CaSiNo's JSON list of dialogues into a ``ScenarioSet`` (see the module docstring).

    A malformed record raises ``InputError`` naming ``FILE: record N (dialogue_id D): FIELD`` and
    what is wrong; with ``skip_bad`` it is left out and listed in the set's ``skipped``. Records are
    numbered from 1 in file order."""
    from game.core.files import read_text

    where = shown(str(path))
    if (
        isinstance(walk_away_points, bool)
        or not isinstance(walk_away_points, int)
        or not 0 <= walk_away_points <= MAX_POINTS
    ):
        raise InputError(f"walk_away_points must be a whole number 0..{MAX_POINTS}, not {walk_away_points!r}")
    text = read_text(path, limit=MAX_SET_BYTES, hint=HINT)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{where}:{e.lineno}:{e.colno}: not JSON: {e.msg}", hint=HINT) from None
    except (ValueError, RecursionError) as e:
        raise InputError(f"{where}: not usable JSON: {shown(str(e)[:200])}", hint=HINT) from None
    if not isinstance(data, list):
        raise InputError(f"{where}: expected a JSON list of dialogues", hint=HINT)
    name = Path(str(path)).name
    scenarios: list[ImportedScenario] = []
    skipped: list[str] = []
    seen: dict[str, int] = {}
    for number, rec in enumerate(data, start=1):
        label = f"record {number}"
        if (
            isinstance(rec, dict)
            and isinstance(rec.get("dialogue_id"), (int, str))
            and not isinstance(rec.get("dialogue_id"), bool)
        ):
            label += f" (dialogue_id {shown(str(rec['dialogue_id'])[:20])})"
        try:
            sid, origin, scene, human = _record(rec, walk_away_points, deadline, name, number)
            if sid in seen:
                raise _Bad(f"dialogue_id repeats record {seen[sid]}'s")
        except _Bad as e:
            msg = f"{where}: {label}: {e}"
            if not skip_bad:
                raise InputError(msg, hint=HINT) from None
            skipped.append(msg)
            continue
        seen[sid] = number
        scenarios.append(ImportedScenario(id=sid, origin=origin, scene=scene, human=human))
    if not scenarios:
        raise InputError(
            f"{where}: no dialogues found" + (f" ({len(skipped)} malformed records skipped)" if skipped else ""),
            hint=HINT,
        )
    notes = (
        NOTES
        if walk_away_points == WALK_AWAY_POINTS
        else NOTES.replace("5 each, from the dataset's README", f"{walk_away_points} each, set on import")
    )
    return ScenarioSet(source="casino", origin=name, notes=notes, skipped=skipped, scenarios=scenarios)
