"""Corrections: a statement that says it replaces an earlier one supersedes it, and the echoes of it.

"Update from the caravan master: departure is now at moonrise." replaces the most
similar older statement ("The caravan departs at sunrise."), and every older
statement that repeats what was replaced ("A camel driver mentions the sunrise
departure.") goes with it: a word or value of the replaced statement that the
correction does not say, in a line closer to the replaced statement than to the
correction.

Only the first statement of a template may correct by its wording (a repeated
"Mara now asks 80 gold" updates its own series through the template rule, and
never reaches past it). A shared correction reaches every scope (whoever reads a
private memory also reads shared ones); a private one only its own scope. Another
source's claim is a rival, never a correction.
"""

from __future__ import annotations

import re
from typing import Any

from memory.records import FACTS, SHARED, STATEMENTS, MemoryRecord
from memory.values import values

# a statement that says it replaces an earlier one: strong cues, and weak ones that need a closer match
STRONG = re.compile(
    r"\b(?:correction|corrected|instead|no longer|not any ?more|changed?|change of plans?|updated?|revised?|"
    r"moved|reset|raised|lowered|scratch that|(?:was|were|am|is|are) (?:wrong|mistaken)|rather than|"
    r"from (?:today|tomorrow|now on)|as of|"
    r"new (?:plan|time|place|price|code|date|spot))\b", re.I)
WEAK = re.compile(r"\b(?:now|actually|any ?more)\b", re.I)
SIMILARITY = {"strong": 0.45, "weak": 0.55}   # how close a correction must be to the statement it replaces
ECHO_SIMILARITY = 0.5   # how close a repeat must be to the replaced statement
NEIGHBOURS = 16         # older statements looked at per correction


def says_it_corrects(text: str) -> str | None:
    """"strong", "weak" or None: how plainly ``text`` says it replaces something (a question never does)."""
    if "?" in text:
        return None
    return "strong" if STRONG.search(text) else "weak" if WEAK.search(text) else None


_NAME = re.compile(r"(?<!^)(?<![.!?:]\s)\b[A-Z][\w'-]+")


def specifics(text: str) -> set[str]:
    """The numbers and names a statement states (capitalised words not opening a sentence)."""
    return set(values(text)) | {w.lower() for w in _NAME.findall(text)}


def _reach(rec: MemoryRecord) -> tuple[str, ...] | None:
    """Scopes a correction may reach (None: every scope)."""
    return None if rec.scope in (SHARED, FACTS) else (rec.scope,)


def _rival(old: MemoryRecord, new: MemoryRecord, cue: str | None = "strong") -> bool:
    """Another source's claim is a rival, never a correction; another speaker overrides a statement
    only by saying plainly that it corrects ("instead", "changed"), never by a passing "actually"."""
    other = old.speaker != new.speaker and None not in (old.speaker, new.speaker)
    return other and ("claim" in (old.kind, new.kind) or cue != "strong")


def correct(bank: Any, rec: MemoryRecord, concepts) -> list[str]:
    """Supersede what ``rec`` (an indexed, active statement that says it corrects) replaces; returns
    the superseded ids."""
    from memory.store import Where
    vec = bank.vector_of(rec.id)
    where = Where(scopes=_reach(rec), kinds=STATEMENTS, status=("active",))
    cue = says_it_corrects(rec.text) or "strong"
    words, least = concepts(rec.text), SIMILARITY[cue]
    found = []  # older statements on the subject (a content word in common), closest first
    for oid, sim in bank.store.query(vec, NEIGHBOURS, where):
        old = bank.records.get(oid)
        if old is None or old.seq >= rec.seq or old.id == rec.id or not concepts(old.text) & words:
            continue
        if sim < least or _rival(old, rec, cue):
            break
        if (values(old.text), concepts(old.text)) != (values(rec.text), words):
            found.append(old)
    if not found:
        return []
    # the one corrected states a specific (a number, a name) that the correction does not; chatter
    # about the subject ("the smugglers are nervous") states none
    mine = specifics(rec.text)
    target = next((old for old in found if specifics(old.text) - mine), found[0])
    # what the correction replaced: the values it changed, else the words it no longer says
    replaced = set(values(target.text)) - set(values(rec.text)) or concepts(target.text) - words
    done = bank.supersede([target.id], rec)
    if not replaced:
        return done
    tvec = bank.vector_of(target.id)
    for oid, sim in bank.store.query(tvec, NEIGHBOURS, where):
        old = bank.records.get(oid)
        if old is None or old.seq >= rec.seq or sim < ECHO_SIMILARITY or _rival(old, rec, cue):
            continue
        mine = concepts(old.text) | set(values(old.text))
        if mine & replaced and sim >= float(bank.vector_of(oid) @ vec):  # closer to what was replaced
            done += bank.supersede([oid], rec)
    return done

