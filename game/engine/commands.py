"""The commands an actor could type now: the catalogue's plausible actions, written as a person types them.

An LLM player handed this list as the enum of its reply's ``command`` field (a grammar-constrained
reply) can send neither a line the parser cannot read nor one the rules refuse as out of reach.
Each masked-in entry of the world's catalogue (``game.engine.catalogue``) is written with display
names by ``game.core.phrasing.phrase``, the writer that echoes every played command ("take brass
key", "ask Old Tom about smuggling", "unlock iron gate with brass key", "offer price=12
quality=high"), then read back by the real parser under the actor's scope; a line is kept only if
it reads as the very action its entry names. When display names read as something else (two
things answer to one name), the ids' words are tried instead; an entry neither way reads back as
its own action is left out, so every listed line parses.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from game.core.phrasing import phrase
from game.core.types import PLAYER, Action
from game.engine.parser import Command, Parser


def command_text(engine: Any, action: Action, ids: bool = False) -> str:
    """The command line that plays ``action`` now: display names, a locked exit by the name of its
    lock where the actor stands (``ids``: the ids' words and the exit's direction instead)."""
    if ids:
        return phrase(action)
    here = engine.spec.locations[engine.state.where[action.actor]]

    def exit_name(direction: str) -> str:
        lock = here.locked.get(direction)
        return lock.name if lock is not None else direction

    return phrase(action, engine.name, exit_name)


def reads_as(text: str, scope: Any, action: Action) -> bool:
    """Whether the parser, fresh (no question pending), reads ``text`` under ``scope`` as ``action``."""
    parsed = Parser().parse(text, scope)
    return isinstance(parsed, Command) and parsed.action == action


def legal_commands(engine: Any, actor: str = PLAYER) -> tuple[str, ...]:
    """The command lines ``actor`` could type now, in catalogue order: for each action the
    catalogue's mask marks plausible, the first of its lines (display names, then the ids' words)
    that the parser reads back as that action under ``engine.scope(actor)``; none when neither does."""
    index = engine.catalogue
    scope = engine.scope(actor)
    lines: dict[str, None] = {}
    for i in np.flatnonzero(index.mask(engine, actor)):
        action = index.templates[i].bind(actor)
        for ids in (False, True):
            line = command_text(engine, action, ids)
            if reads_as(line, scope, action):
                lines.setdefault(line, None)
                break
    return tuple(lines)
