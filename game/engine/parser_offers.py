"""Reading the terms of an offer from the player's words: 'offer 15', 'offer price=15 quality=high',
'offer price 15, quality high', '15 for high quality'."""

from __future__ import annotations

from game.core.errors import did_you_mean
from game.engine.nouns import ARTICLES, key, or_list

OFFER_FILLER = ARTICLES | {
    "and",
    "for",
    "at",
    "of",
    "is",
    "to",
    "with",
    "i",
    "gold",
    "coins",
    "coin",
    "then",
    "offer",
    "counter",
    "be",
}


def _hint(value: str, choices: list[str]) -> str:
    hint = did_you_mean(value, choices)
    return f" ({hint[0].upper()}{hint[1:]})" if hint else ""


def offer_terms(neg: dict[str, tuple[str, ...]], tokens: list[str]) -> tuple[tuple[str, str], ...] | str:
    """The sorted ``(issue, value)`` terms ``tokens`` (the lowercase words after the verb) name
    for a negotiation over ``neg`` (issue -> allowed values; an issue with none takes any word),
    or a message saying what is wrong with them."""
    issues = {key(i): i for i in neg}
    values = {i: {key(v): v for v in vals} for i, vals in neg.items()}
    menu = "; ".join(f"{i} ({', '.join(map(str, v))})" for i, v in neg.items())
    toks = [w for t in tokens for w in t.replace("_", " ").split()]
    chosen: dict[str, str] = {}

    def span(i: int, table: dict[str, str]) -> tuple[str, int] | None:
        for n in range(min(4, len(toks) - i), 0, -1):
            k = " ".join(toks[i : i + n])
            if k in table:
                return table[k], n
        return None

    def invalid(issue: str, bad: str) -> str:
        what = f"'{bad}' is not a valid {issue}." if bad else f"What {issue}?"
        return f"{what} Choose from: {', '.join(map(str, neg[issue]))}." + _hint(bad, list(values[issue]))

    i = 0
    while i < len(toks):
        fits: dict[str, tuple[str, int]] = {}
        hit = span(i, issues)
        if hit is not None:  # "price 15", "price=15", "price is 15"
            issue, n = hit
            i += n
            while i < len(toks) and toks[i] in OFFER_FILLER and not span(i, values[issue]):
                i += 1
            got = span(i, values[issue])
            if got is None and issue in chosen:
                continue  # "15 for high quality": value came first
            if got is None and i < len(toks) and not neg[issue]:
                got = (toks[i], 1)  # an issue with no listed values takes any
            if got is None:
                return invalid(issue, toks[i] if i < len(toks) else "")
            fits[issue] = got
        else:  # a bare value: which issue allows it?
            for issue in neg:
                got = span(i, values[issue])
                if got is not None:
                    fits[issue] = got
            if len(fits) > 1:
                fits = {k: v for k, v in fits.items() if k not in chosen} or fits
            if len(fits) > 1:
                return (
                    f"Which issue is '{toks[i]}' for: {or_list(list(fits))}? Try 'offer {next(iter(fits))}={toks[i]}'."
                )
            if not fits and toks[i] in OFFER_FILLER:
                i += 1
                continue
            if not fits and len(neg) == 1:
                issue = next(iter(neg))
                if neg[issue]:
                    return invalid(issue, toks[i])
                fits[issue] = (toks[i], 1)
            if not fits:
                pool = [*issues, *(k for vs in values.values() for k in vs)]
                return f"I don't understand '{toks[i]}' in that offer. Issues: {menu}.{_hint(toks[i], pool)}"
        issue, (value, n) = next(iter(fits.items()))
        if chosen.get(issue, value) != value:
            return f"You named the {issue} twice. Offer one {issue}."
        chosen[issue] = value
        i += n
    if not chosen:
        example = next(((i, key(v[0])) for i, v in neg.items() if v), None)
        tip = f" Example: 'offer {example[0]}={example[1]}'." if example else ""
        return f"Offer what? Issues: {menu or 'none'}.{tip}"
    return tuple(sorted(chosen.items()))
