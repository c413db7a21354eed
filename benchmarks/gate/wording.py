"""Which writes the world file's wording covers: the gate benchmark reports them apart from the rest.

A write's wording is *declared* when the lexicon built from the world file resolves every part of
the claim as written: the subject's name, the relation's word or phrase, and the object's name
(or a number the relation's unit reads: "20 gold", "twenty gold coins"). Aliases, relation words
and paraphrases the world file does not list are *undeclared*: there the gate must generalise.
This looks at the write's surface form only, never at any decision.
"""

from __future__ import annotations

import numpy as np


def declared(form: tuple[str, str, str, bool], lexicon) -> bool:
    """Does the world's lexicon resolve each part of a claim as written?"""
    s, r, o, _ = form
    rel = lexicon.relation(r)
    if rel is None or lexicon.entity(s) is None:
        return False
    info = lexicon.info(rel)
    if info.range is not None or info.unit:
        return lexicon.number(rel, o) is not None
    return lexicon.entity(o) is not None


def declared_mask(stream, lexicon) -> np.ndarray:
    """One flag per write of the stream, in order."""
    return np.array([declared(w.form, lexicon) for w in stream.writes], dtype=bool)
