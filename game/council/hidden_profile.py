"""A second council task generator, after Stasser and Titus's hidden-profile paradigm.

Stasser and Titus (1985, "Pooling of unshared information in group decision making: Biased
information sampling during discussion", Journal of Personality and Social Psychology 48(6))
gave groups a choice between candidates and spread the information about them so that what
every member read favoured one candidate while the whole of it, pooled, favoured another. Groups
mostly chose the first: they discussed what they all knew and left the unshared items unsaid.

Here a council chooses among three or four options in one of four settings (signing a ship's
navigator, siting a village well, naming a poisoner, picking a caravan's route; wording in
``game.council.profile_texts``). Each *item* speaks for (+1) or against (-1) one option with a
weight: decisive, standard or minor; asides are irrelevant remarks of weight 0.05. Items are
SHARED (in every member's briefing) or UNSHARED (held by exactly one member; every member holds
at least one). The distribution is a hidden profile:

* the shared items alone favour option A (the *shared choice*);
* every member's own view (the shared items and its unshared ones) favours an option other than B;
* all the items pooled favour B (the *pooled choice*) by at least ``MARGIN`` over every other option.

A council debate votes yes or no on a motion, so the motion names one option ``proposed``, A or
B (half the tasks each). An item's ``Evidence.direction`` is its direction on the motion: an
item for the proposed option is +1, one against it -1; praise for a rival is an argument against
the motion (-1) and a fault found in a rival one for it (+1). ``Evidence.aspect`` is the option
an item is about (``"hearsay about <option>"`` for an aside), so the options in dispute are the
session's cruxes. ``CouncilTask.truth`` is the pooled answer: ``proposed == pooled choice``. Every
task is checked (``problems``): the option-level property above; the sign of
``CouncilTask.pooled()`` equals ``truth`` (and the shared items alone sum the other way); every
member starts on the wrong side of 0.5. A draw that fails is replaced by the next sub-seed's.

What is hidden: a member (its ``View``) sees the shared items and its own unshared ones, never
another member's, ``truth``, the options' scores, which option is A or B, or the items' roles.
The chair (``CouncilSession``) knows only the transcript by default; only its ``oracle`` ablation
knows who holds which unstated item and its aspect. No chair uses ``truth`` (scoring only) or sees
the :class:`Profile`, which is where the option-level answer lives.

Randomness: one seed tree per task, ``seed_tree(seed).child("council", "hidden-profile",
attempt)``, with a child stream per part (setting, items, holders, words, members); never the
global state.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from game.core import seeds
from game.council.profile_texts import FRAMES, SETTINGS, Setting
from game.council.tasks import CouncilTask, Evidence, MemberSpec

if TYPE_CHECKING:
    import numpy as np

MEMBERS = range(3, 10)
MARGIN = 0.5  # the pooled choice leads every other option by this much; the shared choice leads B by it
MAX_ATTEMPTS = 64
TIERS = {"decisive": (1.8, 2.6), "standard": (0.9, 1.4), "minor": (0.3, 0.6)}
ASIDE_WEIGHT = 0.05
PARTS = ("setting", "items", "holders", "words", "members")
CONSTRAINTS = (
    "Every report before the council is accurate; what matters is which option they favour taken together.",
    "A no vote sends the council back to the other options.",
)


@dataclass(frozen=True)
class Item:
    """One piece of information: ``valence`` +1 for ``option``, -1 against it; ``holder`` None
    when shared; ``template`` the key of the wording it was written from."""

    id: str
    option: str
    valence: int
    weight: float
    role: str  # decisive, standard, minor or aside
    holder: str | None
    template: str = ""


@dataclass(frozen=True)
class Profile:
    """A generated task with its option-level structure (kept out of the task itself)."""

    task: CouncilTask
    setting: str
    options: tuple[str, ...]
    proposed: str
    shared_choice: str
    pooled_choice: str
    items: tuple[Item, ...]
    attempt: int

    def scores(self, member: str | None = None, pooled: bool = False) -> dict[str, float]:
        """Each option's signed weight over the shared items, plus ``member``'s own (or all, ``pooled``)."""
        return option_scores(self.options, (i for i in self.items if pooled or i.holder in (None, member)))


def option_scores(options: Iterable[str], items: Iterable[Item]) -> dict[str, float]:
    out = dict.fromkeys(options, 0.0)
    for i in items:
        out[i.option] += i.valence * i.weight
    return out


def leader(scores: Mapping[str, float]) -> tuple[str, float]:
    """The best option and its lead over the runner-up."""
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    return ranked[0][0], ranked[0][1] - ranked[1][1]


def problems(p: Profile) -> list[str]:
    """What keeps ``p`` from being a hidden profile (empty when it is one)."""
    out = []
    best, lead = leader(p.scores(pooled=True))
    if best != p.pooled_choice or lead < MARGIN:
        out.append(f"pooled: {best} leads by {lead:.2f}, want {p.pooled_choice} by {MARGIN}")
    shared, s_lead = leader(p.scores())
    if shared == best or shared != p.shared_choice or s_lead <= 0:
        out.append(f"shared items favour {shared} (lead {s_lead:.2f}), the pooled choice is {best}")
    for m in p.task.members:
        if leader(p.scores(m.id))[0] == best:
            out.append(f"{m.id}'s own view already favours {best}")
        if (m.stance - 0.5) * (1 if p.task.truth else -1) >= 0:
            out.append(f"{m.id} starts on the right side ({m.stance})")
    pooled = p.task.pooled()
    if abs(pooled) < MARGIN or (pooled > 0) != p.task.truth:
        out.append(f"the motion's pooled weight {pooled:.2f} disagrees with truth {p.task.truth}")
    by = p.task.by_id()
    shared_sum = sum(by[e].direction * by[e].weight for e in p.task.shared)
    if (shared_sum > 0) == p.task.truth:
        out.append(f"the shared items sum {shared_sum:.2f} on the motion, the same way as the truth")
    return out


def _weight(rng: np.random.Generator, role: str) -> float:
    lo, hi = TIERS[role]
    return round(float(rng.uniform(lo, hi)), 3)


def _unshared(rng: np.random.Generator, hold: np.random.Generator, a: str, b: str, ids: list[str]) -> list[Item]:
    """The items that carry the profile: B's strengths and A's faults, one holder each, every
    member holding at least one."""
    n = len(ids)
    count = max(4, n + int(rng.integers(0, 3)))
    pro_b = max(math.ceil(count / 2), round(count * float(rng.uniform(0.55, 0.75))))
    decisive = int(rng.integers(1, 3))
    items = []
    for j in range(count):
        role = "decisive" if j < decisive else ("standard" if rng.random() < 0.6 else "minor")
        option, valence = (b, 1) if j < pro_b else (a, -1)
        items.append((option, valence, _weight(rng, role), role))
    order, who = hold.permutation(count), hold.permutation(n)
    return [Item("", *items[k], holder=ids[int(who[j % n])]) for j, k in enumerate(order)]


def _shared(rng: np.random.Generator, a: str, b: str, floor: float) -> list[Item]:
    """Shared items that favour A over B by more than ``floor`` (each member's unshared share)."""
    items = []
    if rng.random() < 0.5:
        items.append(Item("", a, -1, _weight(rng, "minor"), "minor", None))
    if rng.random() < 0.5:
        items.append(Item("", b, 1, _weight(rng, "minor"), "minor", None))

    def lead() -> float:
        return sum(i.valence * i.weight * (1 if i.option == a else -1) for i in items)

    while lead() < floor + MARGIN:
        role = "standard" if rng.random() < 0.75 else "decisive"
        option, valence = (a, 1) if rng.random() < 2 / 3 else (b, -1)
        items.append(Item("", option, valence, _weight(rng, role), role, None))
    return items


def _others(rng: np.random.Generator, rest: Iterable[str], everyone: list[str], ids: list[str]) -> list[Item]:
    """Also-rans with balanced records, and asides about anyone."""
    items = []
    for c in rest:
        w = _weight(rng, "standard")
        items.append(Item("", c, 1, w, "standard", None))
        items.append(Item("", c, -1, round(w * float(rng.uniform(0.85, 1.15)), 3), "standard", None))
        if rng.random() < 0.5:
            holder = ids[int(rng.integers(0, len(ids)))]
            items.append(Item("", c, int(rng.choice([-1, 1])), _weight(rng, "minor"), "minor", holder))
    for o in rng.choice(everyone, size=int(rng.integers(1, 4)), replace=False):
        holder = None if rng.random() < 0.5 else ids[int(rng.integers(0, len(ids)))]
        items.append(Item("", str(o), 1, ASIDE_WEIGHT, "aside", holder))
    return items


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


class _Writer:
    """Words items from a setting's cues, never the same cue both ways or the same template twice
    for one option, preferring cues the option has not been discussed on yet."""

    def __init__(self, setting: Setting, rng: np.random.Generator, context: str):
        self.s, self.rng, self.context = setting, rng, context
        self.polarity: dict[tuple[str, str], int] = {}
        self.used: set[tuple[str, str]] = set()

    def _pick(self, seq: tuple[str, ...] | list[str]) -> str:
        return str(seq[int(self.rng.integers(0, len(seq)))])

    def evidence(self, item: Item, eid: str, direction: int) -> tuple[Evidence, str] | None:
        s, o = self.s, item.option
        if item.role == "aside":
            free = [k for k in range(len(s.asides)) if (o, f"aside/{k}") not in self.used]
            k = int(free[int(self.rng.integers(0, len(free)))])
            key, body, gist, aspect = f"aside/{k}", s.asides[k], "an aside", f"hearsay about {o}"
        else:
            pol = "pro" if item.valence > 0 else "con"
            open_ = [
                (cue, k)
                for cue, c in s.cues.items()
                if self.polarity.get((o, cue), item.valence) == item.valence
                for k in range(len(getattr(c, pol)))
                if (o, f"{cue}/{pol}/{k}") not in self.used
            ]
            fresh = [ck for ck in open_ if (o, ck[0]) not in self.polarity] or open_
            if not fresh:
                return None
            cue, k = fresh[int(self.rng.integers(0, len(fresh)))]
            self.polarity[(o, cue)] = item.valence
            c = s.cues[cue]
            key, body = f"{cue}/{pol}/{k}", getattr(c, pol)[k]
            gist, aspect = c.gist[0 if item.valence > 0 else 1], o
        self.used.add((o, key))
        body = body.format(o=o, n=int(self.rng.integers(2, 13)), p=self._pick(s.places), c=self.context)
        src = self._pick(s.sources)
        text = self._pick(FRAMES).format(s=src, S=_cap(src), b=body, B=_cap(body))
        ev = Evidence(id=eid, aspect=aspect, direction=direction, weight=item.weight, text=text, gist=gist)
        return ev, f"{s.name}/{key}"


def _members(
    rng: np.random.Generator, ids: list[str], roles: list[str], items: list[Item], by: dict[str, Evidence]
) -> tuple[MemberSpec, ...]:
    out = []
    shared = [i.id for i in items if i.holder is None]
    for mid, role in zip(ids, roles):
        own = [i.id for i in items if i.holder == mid]
        x = sum(by[e].direction * by[e].weight for e in (*shared, *own))
        bias = float(min(max(rng.normal(0.0, 0.25), -0.3), 0.3))
        out.append(
            MemberSpec(
                id=mid,
                role=role,
                stance=round(1.0 / (1.0 + math.exp(-(x + bias))), 4),
                persuadability=round(float(rng.uniform(0.5, 1.0)), 3),
                private=tuple(own),
            )
        )
    return tuple(out)


def _draw(seed: int, members: int, attempt: int) -> Profile | None:
    """One candidate profile (None when its items cannot be balanced; ``problems`` checks the rest)."""
    tree = seeds.seed_tree(seed).child("council", "hidden-profile", attempt)
    rng = {part: tree.child(part).rng() for part in PARTS}
    r = rng["setting"]
    setting = SETTINGS[str(r.choice(sorted(SETTINGS)))]
    options = [str(o) for o in r.choice(setting.options, size=int(r.integers(3, 5)), replace=False)]
    a, b, rest = options[0], options[1], options[2:]
    proposed = a if r.random() < 0.5 else b
    context = str(r.choice(setting.contexts))
    motion = str(r.choice(setting.motions)).format(x=proposed, X=_cap(proposed), c=context)
    listed = [options[int(k)] for k in r.permutation(len(options))]
    choice = f"The choice lies between {', '.join(listed[:-1])} and {listed[-1]}; the motion names one of them."
    ids = [f"m{i}" for i in range(members)]
    roles = [str(x) for x in r.choice(setting.roles, size=members, replace=False)]

    unshared = _unshared(rng["items"], rng["holders"], a, b, ids)
    load = {m: sum(i.weight for i in unshared if i.holder == m) for m in ids}
    shared = _shared(rng["items"], a, b, max(load.values()))
    lead = sum(i.valence * i.weight * (1 if i.option == a else -1) for i in shared)
    if sum(load.values()) - lead < MARGIN:
        return None  # the shared lead is more than the unshared items can overturn
    raw = [*shared, *unshared, *_others(rng["items"], rest, options, ids)]

    words = rng["words"]
    writer = _Writer(setting, words, context)
    items, evidence = [], []
    for pos, k in enumerate(words.permutation(len(raw))):
        it = raw[int(k)]
        eid = f"e{pos + 1:02d}"
        worded = writer.evidence(it, eid, it.valence * (1 if it.option == proposed else -1))
        if worded is None:
            return None  # one option has more items than its cues can word
        ev, key = worded
        items.append(Item(eid, it.option, it.valence, it.weight, it.role, it.holder, key))
        evidence.append(ev)
    by = {e.id: e for e in evidence}
    best = leader(option_scores(options, items))[0]
    task = CouncilTask(
        id=f"profile-{seed}-{members}",
        motion=motion,
        constraints=(choice, *CONSTRAINTS),
        evidence=tuple(evidence),
        shared=tuple(i.id for i in items if i.holder is None),
        members=_members(rng["members"], ids, roles, items, by),
        truth=proposed == best,
    )
    return Profile(task, setting.name, tuple(options), proposed, a, best, tuple(items), attempt)


def hidden_profile(seed: int, members: int = 4) -> Profile:
    """The hidden profile of ``seed`` for a council of ``members`` (3-9); same arguments, same profile."""
    if members not in MEMBERS:
        raise ValueError(f"members must be between {MEMBERS.start} and {MEMBERS.stop - 1}, got {members}")
    for attempt in range(MAX_ATTEMPTS):
        p = _draw(seed, members, attempt)
        if p is not None and not problems(p):
            return p
    raise RuntimeError(f"no hidden profile for seed {seed} with {members} members")  # pragma: no cover


def hidden_profile_task(seed: int, members: int = 4) -> CouncilTask:
    """The council task of ``hidden_profile(seed, members)``; ``truth`` is the pooled-information answer."""
    return hidden_profile(seed, members).task


def hidden_profile_tasks(seeds: Iterable[int], members: int = 4) -> list[CouncilTask]:
    return [hidden_profile_task(int(s), members) for s in seeds]
