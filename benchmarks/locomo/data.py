"""Read the LoCoMo long-conversation dataset (Maharana et al., 2024) into turns and questions.

The data is not in this repository. snap-research/locomo on GitHub ships it as
``data/locomo10.zip``; :func:`load` reads any of:

* that zip (or any zip holding the files below),
* a directory of per-conversation JSON files (``26.json`` ... as the zip holds them:
  ``speaker_a``, ``speaker_b``, ``session_N`` turn lists, ``session_N_date_time``, ``qa``),
* the widely used ``locomo10.json``: a list of ``{sample_id, conversation: {speaker_a,
  speaker_b, session_N, session_N_date_time}, qa}``.

Every turn becomes one line, the same for every method compared:
``[8 May 2023] Caroline: text``, plus ``[photo: caption]`` when the turn shared an image
(its BLIP caption; the image search query the dataset also keeps is left out).

Evidence ids (``D3:12``: session 3, turn 12) are parsed leniently: a string holding several
ids (``"D8:6; D9:17"``) gives each, brackets are ignored and zero padding does not matter.
Tokens that are not of that form, and ids naming no turn of the conversation, are dropped
and counted (:class:`Dropped`). A question left with no valid evidence is kept but flagged;
the benchmark leaves it out of the recall figures and reports how many.

Anything else wrong (a missing file, bad JSON, a turn without text, an unknown category)
is a :class:`LocomoDataError` naming the file and what is wrong.
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The category numbers of the data files, as LoCoMo's own evaluation code uses them
# (snap-research/locomo task_eval/evaluation.py, evaluation_stats.py; docs/benchmarks/locomo.md)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

_SESSION = re.compile(r"session_(\d+)$")
_DATE = re.compile(r"(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})")
_ID = re.compile(r"D(\d+):(\d+)")
_SPLIT = re.compile(r"[;,\s]+")


class LocomoDataError(ValueError):
    """The LoCoMo data cannot be read: the message names the file and what is wrong."""


@dataclass(frozen=True)
class Turn:
    index: int  # position in the conversation (0-based), over all sessions
    dia_id: str
    session: int
    speaker: str
    text: str
    date: str  # "8 May 2023"
    caption: str | None = None

    @property
    def line(self) -> str:
        """The line every method sees for this turn."""
        photo = f" [photo: {self.caption}]" if self.caption else ""
        return f"[{self.date}] {self.speaker}: {self.text}{photo}"


@dataclass(frozen=True)
class Question:
    index: int
    question: str
    category: int
    evidence: tuple[int, ...]  # turn indexes, sorted, no repeats
    answer: str | None = None

    @property
    def category_name(self) -> str:
        return CATEGORIES[self.category]


@dataclass
class Dropped:
    """Evidence ids that could not be used: malformed tokens and ids naming no turn."""

    malformed: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    split: int = 0  # evidence strings holding several ids, split into them

    def __add__(self, other: Dropped) -> Dropped:
        return Dropped(self.malformed + other.malformed, self.unknown + other.unknown, self.split + other.split)


@dataclass
class Conversation:
    id: str
    source: str  # the file (or zip member) it came from
    speakers: tuple[str, str]
    turns: list[Turn]
    questions: list[Question]
    dropped: Dropped

    @property
    def lines(self) -> list[str]:
        return [t.line for t in self.turns]

    def scored(self) -> list[Question]:
        """The questions with at least one valid evidence turn (the ones recall is measured on)."""
        return [q for q in self.questions if q.evidence]


# --------------------------------------------------------------------------- reading


def load(path: str | Path) -> list[Conversation]:
    """Every conversation in ``path`` (a zip, a directory of per-conversation JSON files, or one JSON
    file: a ``locomo10.json`` list or a single conversation), in a stable order: by file name
    (numerically: 26 before 30 before 41) and, within a list, as listed."""
    p = Path(path)
    if not p.exists():
        raise LocomoDataError(f"{p}: no such file or directory (get data/locomo10.zip from snap-research/locomo)")
    if p.is_dir():
        files = sorted(
            (f for f in p.rglob("*.json") if not _hidden(f.relative_to(p).as_posix())),
            key=lambda f: _natural(f.relative_to(p).as_posix()),
        )
        if not files:
            raise LocomoDataError(f"{p}: the directory holds no .json file")
        docs = [(str(f), _parse(f.read_bytes(), str(f))) for f in files]
    elif zipfile.is_zipfile(p):
        with zipfile.ZipFile(p) as zf:
            names = sorted(
                (n for n in zf.namelist() if n.endswith(".json") and not _hidden(n) and not n.endswith("/")),
                key=_natural,
            )
            if not names:
                raise LocomoDataError(f"{p}: the zip holds no .json file")
            docs = [(f"{p}:{n}", _parse(zf.read(n), f"{p}:{n}")) for n in names]
    elif p.suffix.lower() == ".zip":
        raise LocomoDataError(f"{p}: not a valid zip file")
    else:
        docs = [(str(p), _parse(p.read_bytes(), str(p)))]
    out: list[Conversation] = []
    for source, doc in docs:
        out.extend(_conversations(doc, source))
    if not out:
        raise LocomoDataError(f"{p}: no conversation found")
    ids = [c.id for c in out]
    if len(set(ids)) < len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})
        raise LocomoDataError(f"{p}: conversation ids appear twice: {', '.join(dup)}")
    return out


def _hidden(name: str) -> bool:
    return any(part.startswith((".", "__MACOSX")) for part in name.split("/"))


def _natural(name: str) -> list:
    return [int(s) if s.isdigit() else s for s in re.split(r"(\d+)", name)]


def _parse(raw: bytes, source: str) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise LocomoDataError(f"{source}: not UTF-8 text ({exc})") from None
    except json.JSONDecodeError as exc:
        raise LocomoDataError(f"{source}: not valid JSON ({exc})") from None


def _conversations(doc: Any, source: str) -> Iterator[Conversation]:
    stem = Path(source.rsplit(":", 1)[-1]).stem  # a zip member is "ZIP:member"
    if isinstance(doc, list):  # locomo10.json
        for k, item in enumerate(doc):
            where = f"{source} item {k}"
            if not isinstance(item, dict) or not isinstance(item.get("conversation"), dict):
                raise LocomoDataError(f"{where}: expected an object with a 'conversation' object")
            cid = str(item.get("sample_id") or f"{stem}-{k}")
            yield _conversation(cid, item["conversation"], item.get("qa"), f"{source} ({cid})")
    elif isinstance(doc, dict) and isinstance(doc.get("conversation"), dict):  # one locomo10.json item
        cid = str(doc.get("sample_id") or stem)
        yield _conversation(cid, doc["conversation"], doc.get("qa"), source)
    elif isinstance(doc, dict):  # a per-conversation file of the zip
        yield _conversation(stem, doc, doc.get("qa"), source)
    else:
        raise LocomoDataError(f"{source}: expected a JSON object or list, got {type(doc).__name__}")


def date_of(stamp: Any) -> str:
    """``"1:56 pm on 8 May, 2023"`` -> ``"8 May 2023"`` (the stamp as it is when it has no such date)."""
    if not isinstance(stamp, str) or not stamp.strip():
        return "undated"
    m = _DATE.search(stamp)
    return f"{int(m.group(1))} {m.group(2)} {m.group(3)}" if m else stamp.strip()


def _conversation(cid: str, conv: dict, qa: Any, source: str) -> Conversation:
    speakers = (conv.get("speaker_a"), conv.get("speaker_b"))
    if not all(isinstance(s, str) and s.strip() for s in speakers):
        raise LocomoDataError(f"{source}: missing 'speaker_a' or 'speaker_b'")
    sessions = sorted((int(m.group(1)), v) for k, v in conv.items() if (m := _SESSION.match(k)) and isinstance(v, list))
    if not sessions:
        raise LocomoDataError(f"{source}: no 'session_N' turn list")
    turns: list[Turn] = []
    by_id: dict[tuple[int, int], int] = {}
    for n, items in sessions:
        date = date_of(conv.get(f"session_{n}_date_time"))
        for k, t in enumerate(items):
            where = f"{source}: session_{n} turn {k}"
            if not isinstance(t, dict):
                raise LocomoDataError(f"{where}: expected an object, got {type(t).__name__}")
            for key in ("speaker", "text", "dia_id"):
                if not isinstance(t.get(key), str):
                    raise LocomoDataError(f"{where}: missing or non-text {key!r}")
            m = _ID.fullmatch(t["dia_id"].strip())
            if not m:
                raise LocomoDataError(f"{where}: malformed dia_id {t['dia_id']!r} (expected like 'D1:3')")
            key_id = (int(m.group(1)), int(m.group(2)))
            if key_id in by_id:
                raise LocomoDataError(f"{where}: dia_id {t['dia_id']!r} appears twice")
            cap = t.get("blip_caption")
            by_id[key_id] = len(turns)
            turns.append(
                Turn(
                    index=len(turns),
                    dia_id=t["dia_id"].strip(),
                    session=n,
                    speaker=t["speaker"].strip(),
                    text=t["text"].strip(),
                    date=date,
                    caption=cap.strip() if isinstance(cap, str) and cap.strip() else None,
                )
            )
    if not turns:
        raise LocomoDataError(f"{source}: the sessions hold no turn")
    if not isinstance(qa, list):
        raise LocomoDataError(f"{source}: missing 'qa' list")
    questions, dropped = [], Dropped()
    for k, q in enumerate(qa):
        where = f"{source}: qa {k}"
        if not isinstance(q, dict) or not isinstance(q.get("question"), str) or not q["question"].strip():
            raise LocomoDataError(f"{where}: missing 'question' text")
        cat = q.get("category")
        if isinstance(cat, bool) or not isinstance(cat, int) or cat not in CATEGORIES:
            raise LocomoDataError(f"{where}: category {cat!r} is not one of {sorted(CATEGORIES)}")
        ev = q.get("evidence", [])
        if isinstance(ev, str):
            ev = [ev]
        if not isinstance(ev, list):
            raise LocomoDataError(f"{where}: 'evidence' is not a list")
        idx, d = parse_evidence(ev, by_id)
        dropped = dropped + d
        answer = q.get("answer", q.get("adversarial_answer"))
        questions.append(Question(k, q["question"].strip(), cat, idx, None if answer is None else str(answer)))
    return Conversation(cid, source, (speakers[0].strip(), speakers[1].strip()), turns, questions, dropped)


def parse_evidence(raw: list, by_id: dict[tuple[int, int], int]) -> tuple[tuple[int, ...], Dropped]:
    """Turn indexes of the evidence ids in ``raw`` and what was dropped."""
    d, out = Dropped(), set()
    for item in raw:
        if not isinstance(item, str):
            d.malformed.append(repr(item))
            continue
        tokens = [t for t in _SPLIT.split(item.replace("(", " ").replace(")", " ")) if t]
        if len(tokens) > 1:
            d.split += 1
        if not tokens:
            d.malformed.append(repr(item))
        for tok in tokens:
            m = _ID.fullmatch(tok)
            if not m:
                d.malformed.append(tok)
                continue
            turn = by_id.get((int(m.group(1)), int(m.group(2))))
            if turn is None:
                d.unknown.append(tok)
            else:
                out.add(turn)
    return tuple(sorted(out)), d
