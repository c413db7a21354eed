"""Actions back into command lines: the inverse of the parser, for echoing headless
runs and for text-only agents."""

from __future__ import annotations

from collections.abc import Callable

from game.core.types import Action, Verb


def _same(ident: str | None) -> str:
    return (ident or "").replace("_", " ")


def phrase(action: Action, name: Callable[[str | None], str] = _same, exit_name: Callable[[str], str] = _same) -> str:
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


# the command language as a player is told it (``help``; the LLM player reads it too). Every verb the
# parser reads is listed (tests/test_engine_fiction.py checks it); commands that act on the game rather
# than in it (save, load, help, quit, and any such as undo or again) go on the "Other" rows.
HELP_TEXT = """\
Commands (case doesn't matter; 'the', 'a' and 'an' are optional):
  Moving    go north, north, n  (also s, e, w, u, d, ne, nw, se, sw, in, out;  climb down)
  Looking   look (l);  examine X  (x X, look at X, inspect X, read X);  examine me (x me)
            things named in a room's description can be examined too
  Things    take X (get, grab, pick up);  take all;  drop X;  drop all;  give X to Y
            open X;  unlock X with Y;  light X (a lantern, lamp or torch)
            use X  (does what X is for, or says what you can do with it)
  People    talk to X (greet X, speak to X);  ask X about Y
            say hello  (or say "Hello there", or just "Hello there)
  Trading   trade with X (haggle with X, buy from X)
            offer price=15 quality=high   (or: offer 15;  offer price 15, quality high)
            counter 12
            accept (deal);  reject (no deal);  walk away (leave the table)
  Council   vote yes / vote no  (vote for / vote against)
  Other     inventory (i);  wait (z);  journal (what you were told, what is disputed, whom to trust)
            score (your points and quests done);  quests (what you are trying to do)
            save [name];  load [name];  help (?);  quit (q)
If I'm not sure which thing you mean I'll ask: answer with its name or its number."""
