"""Deal or No Deal (Lewis et al. 2017) dialogues as scenarios.

The public repository's ``src/data/negotiate/*.txt`` hold one dialogue per line, seen by one
agent::

    <input> c0 v0 c1 v1 c2 v2 </input> <dialogue> THEM: ... <eos> YOU: ... <eos> ... </dialogue>
    <output> item0=N item1=N item2=N item0=N item1=N item2=N </output>
    <partner_input> c0 v0 c1 v1 c2 v2 </partner_input>

``c`` are the counts of books, hats and balls, ``v`` the agent's points per item; ``<output>`` is
the final split (the first three for YOU, the last three for THEM), or six ``<disagree>`` /
``<no_agreement>`` / ``<disconnect>`` tokens.

**Scene.** Issues ``book``, ``hat``, ``ball``; a value is how many of them party ``a`` gets
(``"0"`` .. count), ``b`` gets the rest. Party ``a`` is whoever spoke first in the dialogue (YOU
when it is empty). Each party's utility is its points / its maximum points (``split_scene``:
weight = the item type's share of the maximum, value utility = the share of the pile), exactly;
no deal gives 0 (reservation 0).

**Deduplication.** Every dialogue appears twice, once from each side. Two lines are the same
dialogue when they describe the same pair of inputs *and* the same utterances once turned to
party ``a``'s view (YOU/THEM swapped on the other side's line): the key is ``(a's input, b's input,
[(speaker a|b, text), ...])``. Keying on the inputs alone would merge different dialogues that
happen to share a context; keying on the utterances too merges exactly the two views of one
dialogue (and verbatim repeats). A dialogue seen from one side only is kept.

**Human outcome.** An agreement when every view of the dialogue gives the same split (turned to
``a``'s view) and the split shares out exactly the items; the ending is then ``agreement``.
Otherwise no agreement, ending ``disagree`` / ``no_agreement`` / ``disconnect`` (the dataset's
token), ``inconsistent`` (the views give different results) or ``invalid_split`` (a split that
does not add up to the counts). The points are the dataset's (per-item points x items got; 0 on
no deal).

The id is ``dond-<line>``: the line number (1-based) where the dialogue first appears.
"""

from __future__ import annotations

import re
from pathlib import Path

from game.core.errors import InputError
from game.core.text import shown
from game.tournament.scenario_set import (
    DEFAULT_DEADLINE,
    MAX_SET_BYTES,
    HumanOutcome,
    ImportedScenario,
    ScenarioSet,
    scene_utilities,
    split_scene,
)

ITEMS = ("book", "hat", "ball")
MAX_COUNT = 20
"""The most items of one type a line may hold (the dataset has 1-4; keeps outcome spaces small)."""
MAX_POINTS = 1000
"""The most points one item may be worth (the dataset has 0-10)."""
ENDINGS = ("disagree", "no_agreement", "disconnect")
NOTES = (
    "Deal or No Deal (Lewis et al. 2017). Issues book/hat/ball: how many party a gets; b gets "
    "the rest. Utility = points / max points (no deal: 0). a = the first speaker. The two views "
    "of a dialogue are merged by (a's input, b's input, utterances from a's view)."
)

_SECTION = re.compile(r"<(input|dialogue|output|partner_input)>(.*?)</\1>", re.S)
_SPLIT = re.compile(r"^item([0-9])=([0-9]{1,4})$")
_TURN = re.compile(r"(?:^|\s)(YOU|THEM):\s")


class _Bad(Exception):
    """A malformed line: the message says what is wrong (the caller adds where)."""


def _numbers(text: str, what: str) -> tuple[int, ...]:
    parts = text.split()
    if len(parts) != 6:
        raise _Bad(f"<{what}> needs 6 numbers (count and points of 3 items), got {len(parts)}")
    out = []
    for p in parts:
        if not p.isascii() or not p.isdigit() or len(p) > 6:
            raise _Bad(f"<{what}>: {shown(p[:20])!r} is not a whole number")
        out.append(int(p))
    counts, points = out[0::2], out[1::2]
    for c in counts:
        if c > MAX_COUNT:
            raise _Bad(f"<{what}>: count {c} is more than {MAX_COUNT}")
    for v in points:
        if v > MAX_POINTS:
            raise _Bad(f"<{what}>: {v} points per item is more than {MAX_POINTS}")
    if sum(c * v for c, v in zip(counts, points)) == 0:
        raise _Bad(f"<{what}>: every item is worth 0 points")
    return tuple(out)


def _turns(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """(who spoke first: YOU/THEM, ((speaker, utterance), ...)) with whitespace normalised."""
    text = " " + " ".join(text.split()) + " "
    marks = list(_TURN.finditer(text))
    turns = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        turns.append((m.group(1), text[m.end() : end].strip()))
    first = turns[0][0] if turns else "YOU"
    return first, tuple(turns)


def _output(text: str) -> tuple[str, tuple[int, ...] | None]:
    """("split", you3 + them3) or (ending token, None)."""
    parts = text.split()
    if len(parts) != 6:
        raise _Bad(f"<output> needs 6 entries, got {len(parts)}")
    if all(p.startswith("<") and p.endswith(">") for p in parts):
        token = parts[0][1:-1]
        if token not in ENDINGS:
            raise _Bad(
                f"<output>: unknown token {shown(parts[0][:30])!r} (expected "
                + ", ".join(f"<{e}>" for e in ENDINGS)
                + ")"
            )
        return token, None
    got = []
    for i, p in enumerate(parts):
        m = _SPLIT.match(p)
        if m is None or int(m.group(1)) != i % 3:
            raise _Bad(f"<output>: entry {i + 1} is {shown(p[:30])!r}, expected item{i % 3}=N")
        got.append(int(m.group(2)))
    return "split", tuple(got)


def _parse_line(line: str):
    sections: dict[str, str] = {}
    for m in _SECTION.finditer(line):
        if m.group(1) in sections:
            raise _Bad(f"<{m.group(1)}> appears twice")
        sections[m.group(1)] = m.group(2)
    for name in ("input", "dialogue", "output", "partner_input"):
        if name not in sections:
            raise _Bad(f"no <{name}> ... </{name}> section")
    mine = _numbers(sections["input"], "input")
    theirs = _numbers(sections["partner_input"], "partner_input")
    if mine[0::2] != theirs[0::2]:
        raise _Bad(f"<input> counts {list(mine[0::2])} differ from <partner_input> counts {list(theirs[0::2])}")
    first, turns = _turns(sections["dialogue"])
    kind, split = _output(sections["output"])
    return mine, theirs, first, turns, kind, split


def _swap(turns):
    return tuple(("THEM" if who == "YOU" else "YOU", text) for who, text in turns)


def import_dond(path: str | Path, *, skip_bad: bool = False, deadline: int = DEFAULT_DEADLINE) -> ScenarioSet:
    """Read a Deal or No Deal ``.txt`` file into a ``ScenarioSet`` (see the module docstring).

    A malformed line raises ``InputError`` naming ``FILE:LINE`` and what is wrong; with
    ``skip_bad`` it is left out and listed in the set's ``skipped``. Blank lines are ignored."""
    from game.core.files import read_text

    where = shown(str(path))
    text = read_text(path, limit=MAX_SET_BYTES, hint="give a Deal or No Deal .txt file (src/data/negotiate)")
    groups: dict[tuple, dict] = {}
    skipped: list[str] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            mine, theirs, first, turns, kind, split = _parse_line(line)
        except _Bad as e:
            msg = f"{where}:{n}: {e}"
            if not skip_bad:
                raise InputError(
                    msg,
                    hint="each line: <input> ... </input> <dialogue> ... </dialogue> "
                    "<output> ... </output> <partner_input> ... </partner_input>",
                ) from None
            skipped.append(msg)
            continue
        if first == "YOU":  # this line is party a's view
            a_in, b_in, a_turns = mine, theirs, turns
            view = (kind, split)
        else:
            a_in, b_in, a_turns = theirs, mine, _swap(turns)
            view = (kind, split[3:] + split[:3] if split is not None else None)
        key = (a_in, b_in, tuple(("a" if who == "YOU" else "b", t) for who, t in a_turns))
        g = groups.setdefault(key, {"lines": [], "views": [], "a": a_in, "b": b_in})
        g["lines"].append(n)
        g["views"].append(view)
    name = Path(str(path)).name
    scenarios = []
    for g in groups.values():
        scenarios.append(_scenario(g, name, deadline))
    if not scenarios:
        raise InputError(
            f"{where}: no dialogues found" + (f" ({len(skipped)} malformed lines skipped)" if skipped else ""),
            hint="give a Deal or No Deal .txt file (src/data/negotiate)",
        )
    return ScenarioSet(source="dond", origin=name, notes=NOTES, skipped=skipped, scenarios=scenarios)


def _scenario(g: dict, name: str, deadline: int) -> ImportedScenario:
    a_in, b_in = g["a"], g["b"]
    counts = a_in[0::2]
    pa, pb = a_in[1::2], b_in[1::2]
    lines = g["lines"]
    items = list(zip(ITEMS, counts))
    pile = ", ".join(f"{c} {item}{'s' if c != 1 else ''}" for item, c in items)
    scene = split_scene(
        f"DoND {lines[0]}",
        f"Divide {pile}. Each issue is how many of that item party a gets; b gets the rest.",
        items,
        pa,
        pb,
        deadline=deadline,
    )
    views = g["views"]
    kinds = {k for k, _ in views}
    splits = {s for _, s in views}
    outcome = None
    if kinds == {"split"} and len(splits) == 1:
        split = next(iter(splits))
        a_gets, b_gets = split[:3], split[3:]
        if all(x + y == c for x, y, c in zip(a_gets, b_gets, counts)):
            ending = "agreement"
            outcome = {item: str(k) for item, k in zip(ITEMS, a_gets)}
        else:
            ending = "invalid_split"
    elif "split" in kinds or len(kinds) > 1:
        ending = "inconsistent"
    else:
        ending = next(iter(kinds))
    if outcome is not None:
        points = {
            "a": float(sum(v * k for v, k in zip(pa, a_gets))),
            "b": float(sum(v * (c - k) for v, k, c in zip(pb, a_gets, counts))),
        }
    else:
        points = {"a": 0.0, "b": 0.0}
    human = HumanOutcome(
        agreement=outcome is not None,
        outcome=outcome,
        utilities=scene_utilities(scene, outcome),
        points=points,
        ending=ending,
    )
    return ImportedScenario(
        id=f"dond-{lines[0]}", origin=f"{name}:" + ",".join(map(str, lines)), scene=scene, human=human
    )
