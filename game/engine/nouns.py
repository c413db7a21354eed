"""What the parser may refer to (``Noun``, ``Scope``) and how a phrase is matched against it.

The engine builds a ``Scope`` each turn (``Engine.scope``: the items in reach and the NPCs
present, by ``game.engine.predicates``); ``match`` finds the nouns a phrase of the player's words names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from game.core.types import PLAYER


@dataclass(frozen=True)
class Noun:
    """Something the player can refer to right now."""

    id: str  # item id, npc id, "exit:<direction>" for a locked door/gate, "scenery:<id>" for scenery
    name: str  # display name, e.g. "brass key", "Old Tom", "iron gate"
    aliases: tuple[str, ...] = ()
    kind: str = "item"  # "item" | "npc" | "exit" | "scenery"
    where: str = "room"  # "room" | "inventory" | "container"
    portable: bool = True  # an item that can be carried (scenery and exits never are)
    light: bool = False  # a light source ('light X')
    container: bool = False  # something that opens ('open X')


@dataclass(frozen=True)
class Scope:
    """What the parser may match against, built by the engine each turn."""

    actor: str = PLAYER
    nouns: tuple[Noun, ...] = ()
    exits: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    negotiation: dict[str, tuple[str, ...]] | None = None  # issue -> allowed values
    council: bool = False


TOKEN = re.compile(r"[0-9]+(?:\.[0-9]+)?|[^\W_]+(?:['_-][^\W_]+)*")
ARTICLES = frozenset({"the", "a", "an"})
NOISE = frozenset({"my", "your", "some", "this", "that", "one", "please"})
KINDS_ALL = frozenset({"item", "npc", "exit", "scenery"})
ALL = "all"  # the object of 'take all' / 'drop all': every portable thing here, or everything carried
EVERY = frozenset({"all", "everything"})
SELF = frozenset({"me", "self", "myself", "yourself"})


def key(s: object) -> str:
    """Lowercase, underscores as spaces, punctuation dropped, words single-spaced."""
    return " ".join(TOKEN.findall(str(s).lower().replace("_", " ")))


def words(s: str) -> list[str]:
    """The words of ``s`` (as ``key`` makes them) without articles."""
    return [w for w in key(s).split() if w not in ARTICLES]


def phrase(ws: list[str]) -> list[str]:
    """The words that name a thing: no articles, no 'my', 'some', 'please'..."""
    return [w for w in words(" ".join(ws)) if w not in NOISE]


def the(n: Noun) -> str:
    """'the brass key', but 'Old Tom'."""
    return n.name if n.kind == "npc" else f"the {n.name}"


def topic(n: Noun) -> str:
    """What asking about ``n`` asks about: an item's or a person's id (the world's topics use them),
    else the words of its name (a door or scenery has no topic of its own)."""
    return n.id if n.kind in ("item", "npc") else "_".join(words(n.name))


def or_list(items: list[str]) -> str:
    """'a', 'a or b', 'a, b or c'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def names(n: Noun) -> list[list[str]]:
    """Every name a noun answers to, as lists of words: its name, aliases, id (and an exit's direction)."""
    out = [n.name, *n.aliases, n.id.split(":", 1)[-1] if n.kind == "scenery" else n.id.replace(":", " ")]
    if n.kind == "exit" and ":" in n.id:
        out.append(n.id.split(":", 1)[1])
    return [ws for ws in (words(x) for x in out) if ws]


def score(said: list[str], n: Noun) -> int:
    """3 = exact name/alias/id, 2 = words of one name, 1 = words/prefixes across names."""
    known = names(n)
    if any(ws == said for ws in known):
        return 3
    if any(set(said) <= set(ws) for ws in known):
        return 2
    pool = {w for ws in known for w in ws}
    if all(p in pool or (len(p) >= 3 and any(w.startswith(p) for w in pool)) for p in said):
        return 1
    return 0


def unique(nouns: Iterable[Noun]) -> list[Noun]:
    """The nouns, the first of each id only."""
    seen: dict[str, Noun] = {}
    for n in nouns:
        seen.setdefault(n.id, n)
    return list(seen.values())


def match(said: list[str], scope: Scope, kinds: Iterable[str], prefer: tuple[str, ...]) -> list[Noun]:
    """The nouns of ``kinds`` in scope that ``said`` names best; those whose ``where`` is in
    ``prefer`` (e.g. carried, for 'drop') win among equals."""
    kinds = frozenset(kinds)
    scored = [(score(said, n), n) for n in scope.nouns if n.kind in kinds] if said else []
    best = max((s for s, _ in scored), default=0)
    if best == 0:
        return []
    top = unique(n for s, n in scored if s == best)
    # among equals, what the words name by its own name wins over what has them only as an alias
    # ('lamp': the dead lamp here, not the storm lantern carried, also called a lamp)
    named = [n for n in top if set(said) <= set(words(n.name))]
    top = named or top
    # a thing lying here wins over the scenery of its name (the room's text names the thing);
    # scenery here and a thing carried that answer alike are both offered ("Which ...?")
    things = [n for n in top if n.kind != "scenery"]
    if any(n.where != "inventory" for n in things):
        top = things
    preferred = [n for n in top if n.where in prefer]
    return preferred or top
