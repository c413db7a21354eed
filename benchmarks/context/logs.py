"""Synthetic memory logs for the context benchmark, and the rule that scores a context.

A log is a list of memories (:class:`Line`: turn, text, kind, scope, speaker),
1-3 a turn, and the decisions an agent called ``player`` faces in it
(:class:`Decision`: a question, the situation it sees, the answer tokens and
the superseded ones). Five settings:

* ``flood``: three sellers' reservation prices, each overheard once (early,
  in the middle, late), under ``density`` near-duplicate lines a turn: the
  sellers' drifting offers in several wordings, stock lines, prices of other
  items. Asked at the end for each item.
* ``correction``: three subjects (a departure time, a code, a meeting place,
  a price), each stated, echoed, then corrected once or twice. Asked between
  statement and correction, and at the end; a context that still shows a
  superseded value is a miss.
* ``council``: a long debate; three members each set a condition for a
  proposal and two outsiders speak against one, once each.
* ``rumours``: where three items are hidden, each heard once among movement,
  look and gossip lines (and a rumour about a fourth item).
* ``ledger``: a journey's log, about 2.2 lines a turn, with its own wordings
  (benchmarks/context/ledger.py): five facts stated early (an allergy, a
  promise, a time of day, a countersign, a debt) among near-duplicates about
  other people and values; some corrected once or twice. Each is asked about
  once in the last 6% of the log.

Everything is drawn from ``np.random.default_rng([seed, length, setting,
density])``; the same arguments give the same log. Answer and superseded
tokens occur only in the lines that state that fact (:func:`check_log`).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

import numpy as np

from benchmarks.context.ledger import SUBJECTS
from benchmarks.context.phrasing import AMBIENT, CORRECTION, COUNCIL, FLOOD, LEDGER, RUMOURS, SETTINGS

AGENT = "player"
SHARED = "shared"
MINE = f"private:{AGENT}"
OTHERS = ("private:keeper", "private:guard")
VISIBLE = (SHARED, "facts", MINE)

STOP = frozenset(
    """a an the and or but if of to in on at by for with from into onto over under about as is are was
were be been being do does did done have has had what which who whom whose when where why how this that these those
it its it's you your yours he she they them their there here than then so not no only can could would should will
shall may might must let lets s t up out off all any some one each just even very too again still now""".split()
)
_WORD = re.compile(r"[a-z]+")


def content_words(text: str) -> set[str]:
    """Lowercased words of ``text`` that carry content (no stop words, no single letters)."""
    return {w for w in _WORD.findall(text.lower()) if w not in STOP and len(w) > 1}


def shown(token: str, text: str) -> bool:
    """``token`` occurs in ``text`` as a whole token (70 is not in 170 or 70s), ignoring case."""
    return re.search(rf"(?<![\w]){re.escape(token)}(?![\w])", text, re.IGNORECASE) is not None


@dataclass(frozen=True)
class Line:
    turn: int
    text: str
    kind: str
    scope: str = SHARED
    speaker: str | None = None


@dataclass(frozen=True)
class Decision:
    turn: int  # the context is built at this turn, from the lines of earlier turns
    question: str  # the focus
    situation: str  # what the agent sees: a few recent lines
    answer: tuple[str, ...]  # every token must be shown
    stale: tuple[str, ...]  # superseded values: none may be shown
    fact: str  # the line that states the current answer
    fact_lines: tuple[str, ...]  # every line about this fact (statements, echoes, corrections)
    asked: str  # the asked thing: the only words the question may share with fact_lines
    label: str  # distance (early/middle/late), correction state, or question type
    planted: int  # turn of ``fact``


_TURNS = re.compile(r"\bturns? \d+(?:\s*[-–]\s*\d+)?", re.IGNORECASE)


def hit(decision: Decision, text: str) -> bool:
    """A context ``text`` answers ``decision`` when it shows every answer token and no superseded one.
    Turn references ("turns 14-991", "turn 40") are bookkeeping, not statements: a stale value of 14
    is not shown by "(x8, turns 14-46)", nor an answer of 46."""
    text = _TURNS.sub(" ", text)
    return all(shown(a, text) for a in decision.answer) and not any(shown(s, text) for s in decision.stale)


@dataclass
class Log:
    setting: str
    family: str
    seed: int
    length: int
    density: int
    lines: list[Line]
    decisions: list[Decision] = field(default_factory=list)

    def visible(self, before: int) -> list[Line]:
        """The agent's lines of turns before ``before``, oldest first."""
        k = bisect.bisect_left([ln.turn for ln in self.lines], before)
        return [ln for ln in self.lines[:k] if ln.scope in VISIBLE]

    def texts(self) -> list[str]:
        """Every distinct text the log embeds: lines, questions and situations."""
        out = [ln.text for ln in self.lines] + [d.question for d in self.decisions]
        return list(dict.fromkeys(out + [d.situation for d in self.decisions]))


class Writer:
    """Collects the lines of one log, turn by turn, with the family's ambient filler."""

    def __init__(self, rng: np.random.Generator, family: str, length: int):
        self.rng, self.family, self.length = rng, family, length
        self.lines: list[Line] = []

    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def add(self, turn: int, text: str, kind: str, scope: str = SHARED, speaker: str | None = None) -> str:
        self.lines.append(Line(turn, text, kind, scope, speaker))
        return text

    def fill(self, turn: int, have: int, most: int = 3) -> None:
        """Ambient lines so the turn has 1 to ``most`` memories (``have`` already written)."""
        for _ in range(int(self.rng.integers(max(0, 1 - have), max(0, most - have) + 1))):
            self.ambient(turn, AMBIENT[self.family])

    def ambient(self, turn: int, amb: dict) -> None:
        """One line of ``amb``: the agent's observation, the crowd's talk, or another agent's private note."""
        r = self.rng.random()
        if r < 0.55:
            self.add(turn, self.pick(amb["observation"]), "observation", MINE)
        elif r < 0.85:
            self.add(turn, self.pick(amb["utterance"]), "utterance", SHARED, "crowd")
        else:
            scope = self.pick(OTHERS)
            self.add(turn, self.pick(amb["other"]), "observation", scope, scope.split(":")[1])

    def at(self, frac: float) -> int:
        """A turn near ``frac`` of the log (jittered by up to 1% of its length)."""
        jitter = int(self.rng.integers(-(self.length // 100), self.length // 100 + 1))
        return int(np.clip(round(frac * self.length) + jitter, 1, self.length - 2))

    def situation(self, before: int, n: int = 3, about: str | None = None) -> str:
        """The last ``n`` visible lines before turn ``before``; with ``about``, the latest line
        mentioning it comes first."""
        seen = [ln for ln in self.lines if ln.turn < before and ln.scope in VISIBLE]
        lines = [ln.text for ln in seen[-n:]]
        if about is not None:
            own = next((ln.text for ln in reversed(seen) if about in ln.text), None)
            if own is not None and own not in lines:
                lines = [own] + lines[1:]
        return "\n".join(lines)


# --------------------------------------------------------------------------- settings


def flood(w: Writer, density: int) -> list[Decision]:
    F, L, rng = FLOOD[w.family], w.length, w.rng
    pairs = rng.permutation(len(F["sellers"]))[:4]  # a seller always sells the same item in a family
    sellers, items = [F["sellers"][int(k)] for k in pairs], [F["items"][int(k)] for k in pairs]
    floors = [int(v) for v in rng.choice(np.arange(35, 76), size=4, replace=False)]
    reserved = set(floors[:3])
    price = [v + int(rng.integers(30, 71)) for v in floors]
    plants = {w.at(0.02): 0, w.at(0.5): 1, w.at(0.9): 2}
    labels = dict(zip(range(3), ("early", "middle", "late")))
    facts: dict[int, tuple[str, int]] = {}

    def free(p: int) -> int:
        while p in reserved:
            p += 1
        return p

    for t in range(L):
        have = 0
        if t in plants:
            k = plants[t]
            text = w.pick(F["fact"]).format(s=sellers[k], v=floors[k], cur=F["cur"])
            facts[k] = (w.add(t, text, "claim", MINE, sellers[k].lower()), t)
            have += 1
        for _ in range(density):
            r, k = rng.random(), int(rng.integers(4))
            s, item = sellers[k], items[k]
            if r < 0.6:
                price[k] = int(np.clip(price[k] + rng.integers(-3, 4), floors[k] + 6, floors[k] + 70))
                text = w.pick(F["offer"]).format(s=s, item=item, p=free(price[k]), cur=F["cur"])
                w.add(t, text, "offer", SHARED, s.lower())
            elif r < 0.8:
                w.add(t, w.pick(F["stock"]).format(s=s, item=item), "observation", SHARED, s.lower())
            else:
                x = w.pick([i for i in F["items"] if i != item])
                text = w.pick(F["other_sale"]).format(
                    s=w.pick(F["sellers"]), x=x, p=free(5 * int(rng.integers(4, 33))), cur=F["cur"]
                )
                w.add(t, text, "utterance", SHARED, s.lower())
            have += 1
        w.fill(t, have)
    out = []
    for k in range(3):
        text, planted = facts[k]
        out.append(
            Decision(
                L,
                w.pick(F["question"]).format(item=items[k]),
                w.situation(L, about=sellers[k]),
                (str(floors[k]),),
                (),
                text,
                (text,),
                items[k],
                labels[k],
                planted,
            )
        )
    return out


def _values(spec, rng: np.random.Generator, n: int, taken: set[str]) -> list[str]:
    if spec == "code":
        pool = [str(v) for v in rng.choice(np.arange(1000, 10000), size=n + 8, replace=False)]
    elif spec == "price":
        pool = [str(v) for v in rng.choice(np.arange(12, 96), size=n + 8, replace=False)]
    else:
        pool = [str(v) for v in rng.permutation(spec)]
    return [v for v in pool if v not in taken][:n]


def correction(w: Writer, density: int) -> list[Decision]:
    C, L, rng = CORRECTION[w.family], w.length, w.rng
    names = [str(s) for s in rng.permutation(list(C))[:3]]
    events: dict[int, list[tuple[str, int, str]]] = {}  # turn -> (subject, value index, role)
    plan, taken = {}, set()
    for name in names:
        n_fix = int(rng.integers(1, 3))
        vals = _values(C[name]["values"], rng, n_fix + 1, taken)
        taken |= set(vals)
        times = [w.at(float(rng.uniform(0.01, 0.3)))] + sorted(w.at(float(f)) for f in rng.uniform(0.4, 0.95, n_fix))
        times = sorted(set(times))
        vals = vals[: len(times)]
        plan[name] = (vals, times)
        for i, t in enumerate(times):
            events.setdefault(t, []).append((name, i, "state" if i == 0 else "correct"))
            nxt = times[i + 1] if i + 1 < len(times) else L - 1
            for e in rng.integers(t + 1, max(t + 2, nxt), size=int(rng.integers(1, 4))):
                events.setdefault(int(e), []).append((name, i, "echo"))
    said: dict[str, list[tuple[str, int, str]]] = {n: [] for n in names}  # subject -> (line, turn, role)
    for t in range(L):
        have = 0
        for name, i, role in events.get(t, ()):
            text = w.pick(C[name][role]).format(v=plan[name][0][i])
            said[name].append(
                (
                    w.add(
                        t, text, "fact" if role != "echo" else "utterance", SHARED if role != "state" else MINE, "crowd"
                    ),
                    t,
                    role,
                )
            )
            have += 1
        if rng.random() < 0.3 * density:
            w.add(t, w.pick(C[w.pick(names)]["chatter"]), "utterance", SHARED, "crowd")
            have += 1
        w.fill(t, have)
    out = []
    for name in names:
        vals, times = plan[name]
        lines = tuple(dict.fromkeys(text for text, _, _ in said[name]))
        stated = [(text, t) for text, t, role in said[name] if role != "echo"]
        if len(times) > 1 and times[1] > times[0] + 2:
            mid = int(rng.integers(times[0] + 2, times[1]))
            out.append(
                Decision(
                    mid,
                    w.pick(C[name]["question"]),
                    w.situation(mid),
                    (vals[0],),
                    (),
                    stated[0][0],
                    lines,
                    C[name]["asked"],
                    "before correction",
                    stated[0][1],
                )
            )
        n = len(times) - 1
        out.append(
            Decision(
                L,
                w.pick(C[name]["question"]),
                w.situation(L),
                (vals[-1],),
                tuple(vals[:-1]),
                stated[-1][0],
                lines,
                C[name]["asked"],
                "never corrected" if n == 0 else f"after {n} correction{'s' * (n > 1)}",
                stated[-1][1],
            )
        )
    return sorted(out, key=lambda d: d.turn)


def council(w: Writer, density: int) -> list[Decision]:
    C, L, rng = COUNCIL[w.family], w.length, w.rng
    members = [str(m) for m in rng.permutation(C["members"])[:5]]
    props = [C["proposals"][int(i)] for i in rng.permutation(len(C["proposals"]))]
    conds = [str(c) for c in rng.permutation(C["conds"])[:3]]
    outs = [str(o) for o in rng.permutation(C["outsiders"])[:2]]
    plants: dict[int, tuple] = {}
    wanted = [("condition", members[k], props[k], conds[k]) for k in range(3)]
    wanted += [("opposed", outs[k], props[(k + 3) % 4], outs[k]) for k in range(2)]
    for plant in wanted:
        t = w.at(float(rng.uniform(0.02, 0.95)))
        while t in plants:
            t += 1
        plants[t] = plant
    facts = []
    for t in range(L):
        have = 0
        if t in plants:
            kind, who, (prop, para), answer = plants[t]
            text = w.pick(C[kind]).format(m=who, o=who, prop=prop, cond=answer)
            facts.append((kind, who, para, answer, w.add(t, text, "utterance", SHARED, who.lower()), t))
            have += 1
        for _ in range(int(rng.integers(1, 1 + density))):
            prop = props[int(rng.integers(4))][0]
            m = w.pick(members)
            w.add(t, w.pick(C["speech"]).format(m=m, prop=prop), "utterance", SHARED, m.lower())
            have += 1
        w.fill(t, have)
    out = []
    for kind, who, para, answer, text, t in facts:
        q = w.pick(C["ask_" + kind]).format(m=who, para=para)
        out.append(
            Decision(L, q, w.situation(L), (answer,), (), text, (text,), who if kind == "condition" else "", kind, t)
        )
    return out


def rumours(w: Writer, density: int) -> list[Decision]:
    R, L, rng = RUMOURS[w.family], w.length, w.rng
    items = [str(i) for i in rng.permutation(R["items"])[:4]]
    places = [str(p) for p in rng.permutation(R["places"])[:4]]
    plants = {w.at(0.02): 0, w.at(0.5): 1, w.at(0.9): 2}
    plants.setdefault(w.at(float(rng.uniform(0.05, 0.95))), 3)
    labels = dict(zip(range(3), ("early", "middle", "late")))
    facts: dict[int, tuple[str, int]] = {}
    for t in range(L):
        have = 0
        if t in plants:
            k = plants[t]
            teller = w.pick(R["tellers"])
            facts[k] = (
                w.add(
                    t, w.pick(R["fact"]).format(t=teller, item=items[k], place=places[k]), "claim", MINE, teller.lower()
                ),
                t,
            )
            have += 1
        for _ in range(int(rng.integers(1, 1 + density))):
            w.add(t, w.pick(R["move"]).format(loc=w.pick(R["locs"])), "observation", MINE)
            have += 1
        if rng.random() < 0.08:
            teller = w.pick(R["tellers"])
            w.add(t, w.pick(R["lead"]).format(t=teller, item=w.pick(items)), "utterance", SHARED, teller.lower())
            have += 1
        w.fill(t, have)
    out = []
    for k in range(3):
        text, planted = facts[k]
        out.append(
            Decision(
                L,
                w.pick(R["question"]).format(item=items[k]),
                w.situation(L),
                (places[k],),
                (),
                text,
                (text,),
                items[k],
                labels[k],
                planted,
            )
        )
    return out


NEAR = 5  # values a ledger subject keeps for near-duplicates, at least
PER_TURN = (0.2, 0.4, 0.4)  # a ledger turn has 1, 2 or 3 lines (about 2.2 on average) unless more happen


def ledger(w: Writer, density: int) -> list[Decision]:
    """A journey's log: five facts stated early (an allergy, a promise, a time of day, a countersign, a
    debt), each among near-duplicates (the same kind of fact about other people and values), some
    corrected once or twice, and each asked about once near the end."""
    T, L, rng = LEDGER[w.family], w.length, w.rng
    people = [str(p) for p in rng.permutation(T["people"])]
    cast = {"allergy": (people[0], ""), "promise": (people[1], people[2]), "debt": (people[3], people[4])}
    events: dict[int, list[tuple[str, str, str, str, str]]] = {}  # turn -> (subject, role, a, b, value)
    plan: dict[str, list[str]] = {}
    for subject in SUBJECTS:
        S, (a, b) = T[subject], cast.get(subject, ("", ""))
        n_fix = 0 if rng.random() < 0.3 else int(rng.integers(1, 3))
        vals = _values(S["values"], rng, n_fix + 1 + NEAR, set())
        times = [w.at(float(rng.uniform(0.01, 0.08)))]
        times = sorted({*times, *(max(times[0] + 1, w.at(float(f))) for f in rng.uniform(0.3, 0.9, n_fix))})
        plan[subject], near = vals[: len(times)], vals[n_fix + 1 :]
        for i, t in enumerate(times):
            events.setdefault(t, []).append((subject, "state" if i == 0 else "correct", a, b, vals[i]))
            nxt = times[i + 1] if i + 1 < len(times) else L - 1
            for e in rng.integers(t + 1, max(t + 2, nxt), size=int(rng.integers(0, 3))):
                events.setdefault(int(e), []).append((subject, "echo", a, b, vals[i]))
        for t in rng.integers(1, L, size=max(3, round(0.02 * density * L))):
            x, y = _others(rng, people, (a, b), two=bool(b))
            events.setdefault(int(t), []).append((subject, "near", x, y, str(near[int(rng.integers(len(near)))])))
        for t in rng.integers(1, L, size=max(2, round(0.01 * L))):
            x, y = (a, b) if rng.random() < 0.5 else _others(rng, people, (a, b), two=True)
            events.setdefault(int(t), []).append((subject, "chatter", x, y, ""))
    said: dict[str, list[tuple[str, int, str]]] = {s: [] for s in SUBJECTS}
    for t in range(L):
        happened = events.get(t, ())
        for subject, role, a, b, v in happened:
            text = w.pick(T[subject][role]).format(a=a, b=b, v=v)
            if role in ("state", "correct", "echo"):
                kind, scope = ("utterance", SHARED) if role == "echo" else ("fact", MINE if role == "state" else SHARED)
                said[subject].append((w.add(t, text, kind, scope, "crowd"), t, role))
            elif role == "near":
                w.add(t, text, "fact", MINE if rng.random() < 0.5 else SHARED, "crowd")
            else:
                w.add(t, text, "observation", MINE)
        for _ in range(int(rng.choice(3, p=PER_TURN)) + 1 - len(happened)):
            w.ambient(t, T["ambient"])
    asks = sorted(int(t) for t in rng.choice(np.arange(round(0.94 * L), L + 1), size=len(SUBJECTS), replace=False))
    out = []
    for turn, subject in zip(asks, rng.permutation(SUBJECTS)):
        S, (a, b), vals = T[subject], cast.get(str(subject), ("", "")), plan[str(subject)]
        stated = [(text, t) for text, t, role in said[subject] if role != "echo"]
        n = len(vals) - 1
        out.append(
            Decision(
                turn,
                w.pick(S["question"]).format(a=a, b=b),
                w.situation(turn),
                (vals[-1],),
                tuple(vals[:-1]),
                stated[-1][0],
                tuple(dict.fromkeys(text for text, _, _ in said[subject])),
                " ".join({"a": a, "b": b}[k] for k in S["asked"]),
                f"{subject}, " + ("never corrected" if n == 0 else f"after {n} correction{'s' * (n > 1)}"),
                stated[-1][1],
            )
        )
    return out


def _others(rng: np.random.Generator, people: list[str], cast: tuple[str, str], two: bool) -> tuple[str, str]:
    """Names for a near-duplicate: one other person, or a pair that is not the cast's pair (it may
    share one of its names)."""
    while True:
        x, y = (str(p) for p in rng.choice(people, size=2, replace=False))
        if (not two and x != cast[0]) or (two and {x, y} != set(cast)):
            return x, y if two else ""


GENERATORS = {"flood": flood, "correction": correction, "council": council, "rumours": rumours, "ledger": ledger}


def make_log(setting: str, family: str, seed: int, length: int, density: int = 1) -> Log:
    """The log of ``setting`` in phrasing ``family`` for ``seed``, ``length`` turns, ``density``."""
    if setting not in GENERATORS:
        raise ValueError(f"unknown setting {setting!r}; choose one of {', '.join(SETTINGS)}")
    if length < 100:
        raise ValueError(f"a log needs at least 100 turns, not {length!r}")
    rng = np.random.default_rng([seed, length, SETTINGS.index(setting), density])
    w = Writer(rng, family, length)
    decisions = GENERATORS[setting](w, density)
    log = Log(setting, family, seed, length, density, w.lines, decisions)
    check_log(log)
    return log


def check_log(log: Log) -> None:
    """Raise ValueError unless every answer and superseded token occurs only in its fact's lines."""
    for d in log.decisions:
        own = set(d.fact_lines)
        for token in d.answer + d.stale:
            stray = next((ln.text for ln in log.lines if ln.text not in own and shown(token, ln.text)), None)
            if stray is not None:
                raise ValueError(f"{log.setting} seed {log.seed}: {token!r} occurs outside its fact: {stray!r}")
        if not any(shown(a, d.fact) for a in d.answer):
            raise ValueError(f"{log.setting} seed {log.seed}: the fact {d.fact!r} does not state {d.answer!r}")
