"""How a clause's words are put in the order the claim extractor (``memory.extract``) reads, before it
reads them. Each takes and gives lower-cased tokens (``memory.extract.tokens``):

* **Ellipsis after "but".** "The Wren is not moored at Bay 7 but at the gasworks": the clause after
  "but" names no subject and repeats a word of the clause before (or opens with a verb, "... but is now
  15 sovereigns"); it is read with the words of the clause before up to that word, without their
  negations (the contrast asserts what follows it): "the wren is moored at the gasworks".
* **Superseded.** "The fee was 12 sovereigns but is now 15": a clause in the past that a clause with
  "now" follows says what no longer holds: it asserts nothing.
* **Asides.** "The Albatross, not the Wren, is moored at Bay 7": a negated mention between commas is set
  aside; the clause is read without it.
* **Clefts.** "Mt. Corrie is where the Wren is moored": read as "the wren is moored at mt corrie".
"""

from __future__ import annotations

from memory.values import negates

BE = frozenset("is are was were isn't aren't wasn't weren't".split())
PAST = frozenset("was were wasn't weren't used".split())
ASIDE = 4  # most words in an aside between its commas


def elided(before: list[str], toks: list[str], opens_named: bool) -> list[str] | None:
    """The clause after "but" (``toks``) read with the words of the one before it, when it opens with no
    subject of its own (``opens_named`` false: a verb or a word of ``before``); else None."""
    if opens_named or not toks or not before or toks[0] in ("the", "a", "an"):
        return None
    if toks[0] in BE:
        cut = next((k for k, t in enumerate(before) if t in BE), None)
    else:
        cut = max((k for k, t in enumerate(before) if t == toks[0]), default=None)
    if not cut:
        return None
    prefix = [t for k, t in enumerate(before[:cut]) if not negates(before, k)]
    return prefix + toks


def superseded(toks: list[str], following: list[str]) -> bool:
    """Is the clause in the past and the one after it ("but ...") what holds now?"""
    return any(t in PAST for t in toks) and "now" in following


def without_asides(toks: list[str]) -> list[str]:
    """``toks`` without a negated aside between commas (", not the Wren,")."""
    for k in range(len(toks) - 2):
        if toks[k] == "," and negates(toks, k + 1):
            close = next((j for j in range(k + 2, min(len(toks), k + 2 + ASIDE)) if toks[j] == ","), None)
            if close is not None:
                return toks[:k] + toks[close + 1 :]
    return toks


def uncleft(toks: list[str]) -> list[str]:
    """ "X is where S ..." as "S ... at X"; other clauses as they are."""
    for k in range(1, len(toks) - 2):
        if toks[k] in BE and toks[k + 1] == "where":
            return [*toks[k + 2 :], "at", *toks[:k]]
    return toks
