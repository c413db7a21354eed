"""Updates told by the statement itself: the same frame with another value, no cue word needed.

"The tide turns at nine." … "The tide turns at eleven." says nothing about
correcting, yet the second replaces the first: the two are one sentence frame
("the tide turns at _") with one slot filled differently. ``updates_frame`` reads
that from the two statements alone, whatever their kind or labels:

* the words of both are aligned (longest common subsequence); what they do not
  share must be ONE contiguous slot in each, at most ``SLOT_WORDS`` long, and the
  shared frame must be most of both (``FRAME_SHARE``, at least ``FRAME_WORDS`` words);
* the slot is a value, not what the statement is about: it lies in the second half, where a
  statement puts what it tells (end focus; "Ivo owes …" / "Bel owes …" are two debts, "On
  Monday the market …" / "On Tuesday …" two openings);
* what changes is a quantity or a time and nothing else (numbers in digits or words, times of
  day, words in capitals or quotes: "… holds 40 chairs." / "… holds 12 tables." are two
  stocks), or the one closing word a copula assigns ("… is juniper." / "… is thistle.").
  Names, days and things are not values here: "Kim is allergic to peanuts." / "… to
  penicillin." and "The museum is closed on Monday." / "… on Tuesday." can both be true,
  "We went to the beach." / "… to the museum." are two outings, and numbered things differ
  (``memory.values.labels``: "Bus 12" / "Bus 40").

What a frame cannot tell apart stays a limit: "Ana visited Rome in 2019." / "… in 2022." read
as an update, and a reworded update ("Dinner will be at eight." after "Dinner is at seven.")
as two statements.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from memory.quantities import ONES, TENS
from memory.values import labels

SLOT_WORDS = 3  # the longest slot that may change
FRAME_WORDS = 3  # the fewest words the frame must keep
FRAME_SHARE = 0.6  # ... and its share of the longer statement's words

_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[:.'][A-Za-z0-9]+)*|\"|'")
NUMBER_WORDS = frozenset(ONES) | frozenset(TENS) | {"hundred", "thousand", "half", "quarter", "dozen"}
TIME_WORDS = frozenset(  # times of day: one thing happens at one of them (days and months recur)
    "noon midday midnight dawn dusk sunrise sunset daybreak nightfall twilight am pm o'clock oclock".split()
)
COPULAS = frozenset("is are was were be been being becomes become remains remain stays stay equals".split())


def _words(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text) if t not in ("'", '"')]


def _value_like(word: str) -> bool:
    """A quantity or a time: digits, a number word, a time of day, or a word in capitals ("DUSK")."""
    low = word.lower()
    return any(ch.isdigit() for ch in word) or low in NUMBER_WORDS or low in TIME_WORDS or word.isupper()


def _quoted(text: str) -> set[str]:
    return {w.lower() for q in re.findall(r"[\"“‘']([^\"”’']{1,40})[\"”’']", text) for w in _words(q)}


def updates_frame(old: str, new: str) -> bool:
    """Does ``new`` state another value in ``old``'s frame (and so replace it)? See the module doc."""
    a, b = _words(old), _words(new)
    la, lb = [w.lower() for w in a], [w.lower() for w in b]
    if la == lb or min(len(la), len(lb)) < FRAME_WORDS + 1:
        return False
    ops = [op for op in SequenceMatcher(a=la, b=lb, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(ops) != 1:
        return False
    _, i1, i2, j1, j2 = ops[0]
    if i1 == i2 or j1 == j2 or i2 - i1 > SLOT_WORDS or j2 - j1 > SLOT_WORDS or 2 * i1 < len(la):
        # nothing replaced (a word added or dropped), too much replaced, or a slot in the first half: a
        # statement tells its new information last (end focus), what opens it says what it is about
        return False
    frame = len(la) - (i2 - i1)
    if frame < FRAME_WORDS or frame / max(len(la), len(lb)) < FRAME_SHARE:
        return False
    if labels(old) != labels(new):
        return False  # "Bus 12" and "Bus 40" are two buses, not one bus renumbered
    quoted = _quoted(old) | _quoted(new)
    if all(_value_like(w) or w.lower() in quoted for w in a[i1:i2] + b[j1:j2]):
        return True  # only a quantity or a time changed ("at nine" / "at eleven")
    # one word a copula assigns, closing the statement: "The countersign is juniper." / "… thistle."
    return i2 - i1 == j2 - j1 == 1 and la[i1 - 1] in COPULAS and i2 == len(la) and j2 == len(lb)
