"""Actions back into command lines: the inverse of the parser, for echoing headless
runs and for text-only agents."""

from __future__ import annotations

from collections.abc import Callable

from game.types import Action, Verb


def _same(ident: str | None) -> str:
    return (ident or "").replace("_", " ")


def phrase(action: Action, name: Callable[[str | None], str] = _same,
           exit_name: Callable[[str], str] = _same) -> str:
    """A command line the parser reads back as ``action`` (``name``: id -> display name;
    ``exit_name``: direction -> the name of the lock on that exit)."""
    v = action.verb
    if v is Verb.GO:
        return f"go {action.obj}"
    if v is Verb.GIVE:
        return f"give {name(action.obj)} to {name(action.target)}"
    if v is Verb.UNLOCK:
        obj = action.obj or ""
        what = exit_name(obj[5:]) if obj.startswith("exit:") else name(obj)
        return f"unlock {what} with {name(action.target)}"
    if v is Verb.ASK:
        return f"ask {name(action.obj)} about {(action.target or '').replace('_', ' ')}"
    if v is Verb.TRADE:
        return f"trade with {name(action.obj)}"
    if v is Verb.OFFER:
        return "offer " + " ".join(f"{k}={val}" for k, val in action.terms or ())
    if v is Verb.VOTE:
        return f"vote {action.text}"
    if v is Verb.SAY:
        return f"say {action.text or ''}".rstrip()
    if v is Verb.WALK_AWAY:
        return "walk away"
    if action.obj:
        return f"{v.value} {name(action.obj)}"
    return v.value
