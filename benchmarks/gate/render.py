"""How a claim is written: structured fields or a sentence, in one of the benchmark's surface styles.

Styles: ``plain`` (ids and the relation's first phrasing), ``alias`` (another name
of the subject and/or the object), ``synonym`` (another phrasing of the
relation the lexicon lists), ``units`` ("20 gold coins"), ``words`` ("twenty-five
gold") and ``paraphrase`` (hand-written sentences, text only). Each rendering
also returns the claim as written -- (subject, relation, object, truth) spans,
no lexicon applied -- which is what the lexicon-free baselines get.
"""

from __future__ import annotations

import numpy as np

from benchmarks.gate.text import (
    PARAPHRASES,
    PLAIN,
    PLAIN_REL,
    SYNONYM_FRAMES,
    UNIT_FORMS,
    WORD_FORMS,
    display,
    fill,
    number_words,
)

Form = tuple[str, str, str, bool]


class Renderer:
    def __init__(self, rng: np.random.Generator, world) -> None:
        self.rng, self.world = rng, world

    def _pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def name(self, entity: str, alias: bool | None, text: bool) -> str:
        """An entity as written: its id or one of its aliases (alias=None: either, half and half)."""
        if alias is None:
            alias = bool(self.rng.random() < 0.5)
        kind = self.world.kind[entity]
        if alias and self.world.names.get(entity):
            return self._pick(self.world.names[entity])
        return display(entity, kind) if text else entity

    def price(self, n: int, style: str, text: bool) -> str:
        if style == "units":
            return self._pick(UNIT_FORMS).format(n=n)
        if style == "words":
            return self._pick(WORD_FORMS).format(w=number_words(n, int(self.rng.integers(2))))
        return f"{n} gold" if text else str(n)

    def render(self, style: str, s: str, r: str, o: str, truth: bool, mode: str) -> tuple[Form, str] | None:
        """(the claim as written, the sentence or "") for one style and mode; None if the style does not
        fit the claim (e.g. units for a location, or no paraphrase template for it)."""
        if style == "paraphrase":
            return self._paraphrase(s, r, o, truth)
        if style in ("units", "words") and r != "price":
            return None
        if style == "synonym" and not truth:
            return None
        text = mode == "text"
        sub_alias = obj_alias = False
        if style == "alias":
            both = r == "price" or self.rng.random() < 0.3
            sub_alias = both or self.rng.random() < 0.5
            obj_alias = r != "price" and (both or not sub_alias)
        sname = self.name(s, sub_alias, text)
        oname = self.price(int(o), style, text) if r == "price" else self.name(o, obj_alias, text)
        if style == "synonym":
            frame, phrase = self._pick(SYNONYM_FRAMES[r])
        else:
            frame, phrase = PLAIN[r][0 if truth else 1], (PLAIN_REL[r] if text else r)
        if not text:
            return (sname, phrase, oname, truth), ""
        return (sname, phrase, oname, truth), fill(frame, s=sname, o=oname)

    def _paraphrase(self, s: str, r: str, o: str, truth: bool) -> tuple[Form, str] | None:
        options = [p for p in PARAPHRASES if p[0] == r and p[1] == truth]
        if not options:
            return None
        _, _, template, phrase = self._pick(options)
        sname = self.name(s, None, True)
        if r == "price":
            n = int(o)
            words = number_words(n, int(self.rng.integers(2)))
            text = fill(template, s=sname, n=n, w=words, W=words.capitalize())
            oname = f"{words} gold" if ("{w}" in template or "{W}" in template) else f"{n} gold"
        else:
            oname = self.name(o, None, True)
            text = fill(template, s=sname, o=oname)
        return (sname, phrase, oname, truth), text
