"""What counts as a value in a memory's text, for every stage that must keep values apart.

A value is a number ("86", "1,200", "3.5") or the value of a ``key=value`` pair ("price=40",
"mood=calm"). Masking never folds two lines that state different values, and compression never
summarises them into one (``memory.masking``, ``memory.compress``).
"""

from __future__ import annotations

import re

VALUE = re.compile(r"(?<![\w.])(?:(?P<key>[A-Za-z_][\w-]*)=(?P<kv>[\w-]+(?:\.\d+)?)|(?P<num>\d+(?:[.,]\d+)*))")


def values(text: str) -> tuple[str, ...]:
    """The values a text states, in order, each as written (``price=40``, ``86``)."""
    return tuple(m.group(0) for m in VALUE.finditer(text))


SLOT = "\x00"


def template(text: str) -> str:
    """The text with every value replaced by a slot: lines with one template say the same thing
    about possibly different values."""
    return VALUE.sub(lambda m: f"{m.group('key')}={SLOT}" if m.group("key") else SLOT, text)


def template_key(text: str) -> str:
    """``template`` compared loosely: case, spacing and closing punctuation do not matter."""
    return " ".join(template(text).lower().split()).rstrip(" .!?'\"")
