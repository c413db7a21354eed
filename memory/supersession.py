"""Corrections: a statement that says it replaces an earlier one supersedes it, and the echoes of it.

"Update from the caravan master: departure is now at moonrise." replaces the most
similar older statement ("The caravan departs at sunrise."), and every older
statement that repeats what was replaced ("A camel driver mentions the sunrise
departure.") goes with it: a word or value of the replaced statement that the
correction does not say, in a line closer to the replaced statement than to the
correction.

A world fact (kind ``fact``) needs no cue when it plainly says the same of one
subject with another value (``replaces_specific``): worded alike but for the last
word ("… received by the abbot after Lauds." → "… after Compline."), or reworded with
``SAME_WORDS`` of its words in common and each number keeping its unit, at least
``UNCUED_SIMILARITY`` alike and from the same source. Exactly one kind of specific
(numbers, or names) may change: "Mara's code is 1234" and "Bram's code is 5678" are
two facts, and so are "the east gate code is 4969" and "the west gate code is 2804"
(a contrasting word, ``CONTRASTS``), "barrel 7" and "barrel 9" (labels), "On Monday
the market opens at 8" and "On Tuesday …" (a word other than the last), and "The
ferry leaves at 8." and "The ferry ticket costs 3 silver." (other words, other
units). A reworded update with no cue is left alone: it cannot be told from a second
true fact without a model of meaning.

A correction replaces whatever holds the corrected statement's place now (a third
value replaces the second), and the older lines that state a replaced number, or a
replaced name told as a value ("A rigger reads the hatch digits off her glove:
5142."), go with it; lines about a replaced person stay.

Only the first statement of a template may correct by its wording (a repeated
"Mara now asks 80 gold" updates its own series through the template rule, and
never reaches past it). A shared correction reaches every scope (whoever reads a
private memory also reads shared ones); a private one only its own scope. Another
source's claim is a rival, never a correction.
"""

from __future__ import annotations

import re
from typing import Any

from memory.compress import value_slots
from memory.frames import updates_frame
from memory.records import FACTS, SHARED, STATEMENTS, MemoryRecord
from memory.values import labels, values

# a statement that says it replaces an earlier one: strong cues, and weak ones that need a closer match
STRONG = re.compile(
    r"\b(?:correction|corrected|instead|no longer|not any ?more|changed?(?! hands)|change of plans?|updated?|revised?|"
    r"moved|reset|raised|lowered|scratch that|(?:forget|scrap|ignore|disregard) (?:what|that)|(?:was|were|am|is|are) (?:wrong|mistaken)|rather than|"
    r"from (?:today|tomorrow|now on)|as of|"
    r"new (?:plan|time|place|price|code|date|spot))\b",
    re.I,
)
WEAK = re.compile(r"\b(?:now|actually|any ?more)\b", re.I)
SIMILARITY = {"strong": 0.45, "weak": 0.55}  # how close a correction must be to the statement it replaces
UNCUED_SIMILARITY = 0.5  # how close an uncued world fact must be to the older fact it replaces
SAME_WORDS = 0.6  # ... and the share of their words (specifics aside) they must have in common
ECHO_SIMILARITY = 0.5  # how close a repeat must be to the replaced statement
SPECIFIC_ECHO_SIMILARITY = 0.3  # ... when it states the very number or name that was replaced
HOLDER_SLACK = 0.1  # what holds a corrected statement's place may be this much less alike
ECHO_KINDS = ("utterance", "claim", "fact")  # what repeats a value; goals and rules are the agent's own
ECHO_NEIGHBOURS = 64  # older statements looked at per replaced statement, for its echoes
NEIGHBOURS = 64  # older statements looked at per correction (a refrain on the subject can fill 16)


_TOKEN = re.compile(r"[\w']+")
CUE_WORDS = 25  # a cue corrects only in a statement this short: in a long message "changed" or "now" is talk


def says_it_corrects(text: str) -> str | None:
    """ "strong", "weak" or None: how plainly ``text`` says it replaces something. A question never does,
    nor a message of more than ``CUE_WORDS`` words: a correction states one thing ("The ferry now leaves
    at dusk."), and in a long message about many things a "now" or a "changed" corrects none of them
    (such a message may still update by its frame, ``memory.frames``)."""
    if "?" in text or len(_TOKEN.findall(text)) > CUE_WORDS:
        return None
    return "strong" if STRONG.search(text) else "weak" if WEAK.search(text) else None


_NAME = re.compile(r"(?<!^)(?<![.!?:]\s)\b[A-Z][\w'-]+")


def specifics(text: str) -> set[str]:
    """The numbers and names a statement states (capitalised words not opening a sentence)."""
    return set(values(text)) | {w.lower() for w in _NAME.findall(text)}


# words that tell two things of one kind apart: facts that differ in one of these are about different things
CONTRASTS = frozenset(
    """left right upper lower inner outer front back north south east west northern southern
eastern western first second third fourth last next old new red blue green yellow white black grey gray brown
golden silver iron copper wooden stone small large big little high low near far day night morning evening
summer winter spring autumn men women his her their our my your own other""".split()
)


_OPENING_OWNER = re.compile(r"^\W*([A-Z][\w-]*)'s\b")  # "Mara's strongbox ...": a name, though it opens


def _parts(text: str) -> tuple[set[str], set[str]]:
    """The numbers and the names a text states (an opening word counts only as an owner: "Mara's")."""
    numbers = set(values(text))
    owner = _OPENING_OWNER.match(text)
    found = {w.lower() for w in _NAME.findall(text)} | ({owner.group(1).lower()} if owner else set())
    return numbers, {w[:-2] if w.endswith("'s") else w for w in found} - numbers


def _swaps(old_text: str, new_text: str) -> tuple[bool, bool]:
    """Whether ``new_text`` states other numbers, and other names, in place of ``old_text``'s."""
    (on, onames), (nn, nnames) = _parts(old_text), _parts(new_text)
    return bool(on and nn and on != nn and not on & nn), bool(onames - nnames and nnames - onames)


def another_thing(old_text: str, new_text: str, concepts) -> bool:
    """Whether two world facts are about two things, so neither can replace the other without saying
    so: they differ in both numbers and names ("Mara's code is 1234" / "Bram's code is 5678"), each
    names a numbered thing ("barrel 7" / "cask 9"), or a contrasting word tells them apart ("east" /
    "west")."""
    numbers, names_ = _swaps(old_text, new_text)
    lo, ln = labels(old_text), labels(new_text)
    if (numbers and names_) or (lo and ln and lo != ln):
        return True
    only_old, only_new = concepts(old_text) - concepts(new_text), concepts(new_text) - concepts(old_text)
    return bool(only_old & CONTRASTS and only_new & CONTRASTS)




def _same_thing(old_text: str, new_text: str, concepts) -> bool:
    """Do the two facts say the same thing of one subject, apart from its value? Either they are worded
    alike but for the very last word or number ("… received by the abbot after Lauds." / "… after
    Compline."; a word swapped anywhere else is another thing: "On Monday the market …" / "On Tuesday
    …"), or, reworded, they share most of their words besides the specifics (``SAME_WORDS``) and a
    number keeps its unit ("93 pence" / "92 pence", never "at 8" / "3 silver")."""
    ta, tb = _TOKEN.findall(old_text.lower()), _TOKEN.findall(new_text.lower())
    if len(ta) == len(tb):
        diff = [k for k, (x, y) in enumerate(zip(ta, tb)) if x != y]
        if diff:
            return diff == [len(ta) - 1]
    (on, onames), (nn, nnames) = _parts(old_text), _parts(new_text)
    wa, wb = concepts(old_text) - on - onames, concepts(new_text) - nn - nnames
    if not wa or not wb or len(wa & wb) / len(wa | wb) < SAME_WORDS:
        return False
    ua = {unit for value, unit in value_slots(old_text)}
    ub = {unit for value, unit in value_slots(new_text)}
    return ua == ub


def replaces_specific(old_text: str, new_text: str, concepts) -> bool:
    """Whether ``new_text`` states another value of what ``old_text`` states, with no cue: exactly one
    kind of specific (numbers, or names) is replaced by another, they are about one thing
    (``another_thing``) and say the same of it (``_same_thing``)."""
    numbers, names_ = _swaps(old_text, new_text)
    return (
        numbers != names_
        and not another_thing(old_text, new_text, concepts)
        and _same_thing(old_text, new_text, concepts)
    )


def _uncued(old_text: str, new_text: str, concepts) -> bool:
    """Does ``new_text`` replace ``old_text`` by what it says alone: the same frame with another value
    (``memory.frames``), or the same subject reworded with one kind of specific changed
    (``replaces_specific``)? Neither reads a kind label."""
    return updates_frame(old_text, new_text) or replaces_specific(old_text, new_text, concepts)


def _reach(rec: MemoryRecord) -> tuple[str, ...] | None:
    """Scopes a correction may reach (None: every scope)."""
    return None if rec.scope in (SHARED, FACTS) else (rec.scope,)


def _rival(old: MemoryRecord, new: MemoryRecord, cue: str | None = "strong") -> bool:
    """Another source's claim is a rival, never a correction; another speaker overrides a statement
    only by saying plainly that it corrects ("instead", "changed"), never by a passing "actually"."""
    other = old.speaker != new.speaker and None not in (old.speaker, new.speaker)
    return other and ("claim" in (old.kind, new.kind) or cue != "strong")


def _holder(bank: Any, old: MemoryRecord) -> MemoryRecord | None:
    """What now holds ``old``'s place: ``old`` if active, else whatever superseded it (followed down
    the chain to an active statement), else None."""
    for _ in range(8):
        if old.status == "active":
            return old
        nxt = bank.records.get(old.superseded_by) if old.status == "superseded" else None
        if nxt is None:
            return None
        old = nxt
    return None


def correct(bank: Any, rec: MemoryRecord, concepts) -> list[str]:
    """Supersede what ``rec`` (an indexed, active statement that says it corrects, or a world fact)
    replaces; returns the superseded ids."""
    from memory.store import Where

    vec = bank.vector_of(rec.id)
    said = says_it_corrects(rec.text)
    if said is None and rec.kind not in STATEMENTS:
        return []
    # superseded statements are searched too: a second correction is closest to the first statement,
    # and replaces whatever holds its place now (the first correction)
    where = Where(scopes=_reach(rec), kinds=STATEMENTS, status=("active", "superseded"))
    cue = said  # an uncued fact of another source is a rival, never a correction (``_rival``)
    words, least = concepts(rec.text), SIMILARITY[said] if said else UNCUED_SIMILARITY
    found: list[MemoryRecord] = []  # older statements on the subject (a content word in common), closest first
    for oid, sim in bank.store.query(vec, NEIGHBOURS, where):
        first = bank.records.get(oid)
        old = _holder(bank, first) if first is not None else None
        if old is None or old.seq >= rec.seq or old.id == rec.id or old in found or not concepts(first.text) & words:
            continue
        if sim < least or _rival(old, rec, cue):
            break
        if old is not first and float(bank.vector_of(old.id) @ vec) < least - HOLDER_SLACK:
            continue  # what replaced the line (as an echo, say) is about something else
        if said is None and not _uncued(old.text, rec.text, concepts):
            continue
        if (values(old.text), concepts(old.text)) != (values(rec.text), words):
            found.append(old)
    if not found:
        return []
    # the one corrected states a specific (a number, a name) that the correction does not; chatter
    # about the subject ("the smugglers are nervous") states none. A world fact replaces every older
    # fact on its subject that states another value (the world holds one at a time)
    mine = specifics(rec.text)
    first = next((old for old in found if specifics(old.text) - mine), found[0])
    targets = [first] + [
        old
        for old in found
        if old is not first and _uncued(old.text, rec.text, concepts)
    ]
    done: list[str] = []
    for target in targets:
        done += bank.supersede([target.id], rec)
        done += _echoes(bank, target, rec, vec, concepts, cue)
    return done


def _told(text: str, name: str) -> bool:
    """Is ``name`` told in the second half of ``text`` (where a statement puts what it says of its
    subject: "… loads at Eelbrook landing", "… after Lauds"), not the subject in the first half?"""
    words = _TOKEN.findall(text.lower())
    at = [k for k, w in enumerate(words) if w == name or w == f"{name}'s"]
    return bool(at) and at[0] >= len(words) / 2


def _echoes(bank: Any, target: MemoryRecord, rec: MemoryRecord, vec, concepts, cue: str | None) -> list[str]:
    """Supersede the older statements that repeat what ``rec`` replaced in ``target``: a line stating a
    number, or a name told as a value (``_told``), that the correction replaced ("A rigger reads the
    hatch digits off her glove: 5142.") and sharing a word with the subject, or a line closer to the replaced statement than to the
    correction that repeats a word or value the correction no longer says."""
    from memory.store import Where

    mine, theirs = specifics(rec.text), specifics(target.text)
    # the specifics replaced, and their replacements; a name that is what the replaced statement is
    # about ("Captain Rhee guards the tower") is no value, and lines about her repeat nothing
    gone, new = {x for x in theirs - mine if x[0].isdigit() or _told(target.text, x)}, mine - theirs
    # what the correction replaced: the values it changed, else the words it no longer says
    replaced = set(values(target.text)) - set(values(rec.text)) or concepts(target.text) - concepts(rec.text)
    replaced -= theirs - gone  # nor is a line about the subject an echo by naming it
    if not replaced and not gone:
        return []
    subject = concepts(target.text) & concepts(rec.text)  # what both are about ("hatch", "abbot")
    where = Where(scopes=_reach(rec), kinds=ECHO_KINDS, status=("active",))
    tvec = bank.vector_of(target.id)
    done: list[str] = []
    for oid, sim in bank.store.query(tvec, ECHO_NEIGHBOURS, where):
        old = bank.records.get(oid)
        if old is None or old.seq >= rec.seq or old.id == rec.id or _rival(old, rec, cue):
            continue
        stated = specifics(old.text)
        if (
            gone
            and stated & gone
            and not stated & new
            and sim >= SPECIFIC_ECHO_SIMILARITY
            and concepts(old.text) - stated & subject
        ):
            done += bank.supersede([oid], rec)
            continue
        if sim < ECHO_SIMILARITY:
            continue
        said = concepts(old.text) | set(values(old.text))
        if said & replaced and sim >= float(bank.vector_of(oid) @ vec):  # closer to what was replaced
            done += bank.supersede([oid], rec)
    return done
