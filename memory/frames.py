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
  Monday the market …" / "On Tuesday …" two openings), and it either holds a value-like word (a number, in
  digits or words, a time of day, a name, a word in capitals or quotes) or follows a
  copula ("… is juniper." / "… is thistle."), where a sentence states what
  something is. "We went to the beach." / "… to the museum." are two outings.

Two statements that change two slots ("Bel owes 30 silver" / "Ivo owes 14 silver")
are about two things. ``masked`` gives a statement's frame with its value-like
words replaced by one placeholder, for comparing reworded statements by meaning.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

SLOT_WORDS = 3  # the longest slot that may change
FRAME_WORDS = 3  # the fewest words the frame must keep
FRAME_SHARE = 0.6  # ... and its share of the longer statement's words

_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[:.'][A-Za-z0-9]+)*|\"|'")
NUMBER_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand
half quarter dozen score first second third fourth fifth sixth seventh eighth ninth tenth""".split()
)
TIME_WORDS = frozenset(
    """noon midday midnight dawn dusk sunrise sunset daybreak nightfall twilight morning afternoon evening
night tonight tomorrow yesterday today monday tuesday wednesday thursday friday saturday sunday
january february march april may june july august september october november december
spring summer autumn fall winter am pm o'clock oclock""".split()
)
COPULAS = frozenset("is are was were be been being becomes become remains remain stays stay equals".split())


def _words(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text) if t not in ("'", '"')]


def _value_like(word: str, opening: bool) -> bool:
    low = word.lower()
    if any(ch.isdigit() for ch in word) or low in NUMBER_WORDS or low in TIME_WORDS:
        return True
    if len(word) > 1 and word.isupper():
        return True
    return word[:1].isupper() and not opening  # a name (a capital not opening the sentence)


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
    quoted = _quoted(old) | _quoted(new)
    slot = [(w, k == 0) for k, w in zip(range(i1, i2), a[i1:i2])] + [(w, False) for w in b[j1:j2]]
    if any(_value_like(w, opening) or w.lower() in quoted for w, opening in slot):
        return True
    return la[i1 - 1] in COPULAS
