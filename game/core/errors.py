"""One exception family for everything a user can get wrong.

Each error says *where* (file, line/column or field path), *what* (the
offending value) and, when we can guess, a *hint*. Pretty printing happens only
at the CLI edge (``ParleyError.render``).
"""

from __future__ import annotations

import contextlib
import difflib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass


def did_you_mean(value: object, choices: Iterable[str]) -> str | None:
    """A 'did you mean' hint for a misspelt identifier, or None."""
    if not isinstance(value, str):
        return None
    close = difflib.get_close_matches(value, list(choices), n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else None


@dataclass
class Problem:
    """One thing wrong with an input: where, what, and a hint."""

    message: str
    file: str | None = None
    path: str | None = None  # dotted field path, e.g. npcs.tom.location
    line: int | None = None
    column: int | None = None
    hint: str | None = None

    def where(self) -> str:
        parts = []
        if self.file:
            loc = self.file
            if self.line is not None:
                loc += f":{self.line}"
                if self.column is not None:
                    loc += f":{self.column}"
            parts.append(loc)
        if self.path:
            parts.append(self.path)
        return ": ".join(parts)

    def render(self) -> str:
        """One line: ``file:line:col: path: message (hint)``. Every part is passed through
        ``game.core.text.shown``, so control characters and bidi overrides from a file name or a
        world file's value are printed as visible escapes, never interpreted by the terminal."""
        from game.core.text import shown

        where = shown(self.where())
        text = f"{where}: {shown(self.message)}" if where else shown(self.message)
        if self.hint:
            text += f" ({shown(self.hint)})"
        return text


class ParleyError(Exception):
    """Base class: a user-facing error with a message and an optional hint."""

    exit_code = 1

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def render(self) -> str:
        """For the terminal: values from files and flags in the message never drive it."""
        from game.core.text import shown

        return f"{shown(self.message)}\n  hint: {shown(self.hint)}" if self.hint else shown(self.message)


class InputError(ParleyError):
    """Bad input from the user: a file, a flag, a command. Exit code 2."""

    exit_code = 2


class WorldError(InputError):
    """A world folder failed to load; carries every problem found."""

    def __init__(self, problems: list[Problem], source: str = "world"):
        self.problems = problems
        n = len(problems)
        super().__init__(f"{source}: {n} problem{'s' if n != 1 else ''}")

    def render(self) -> str:
        from game.core.text import shown

        return "\n".join([shown(self.message)] + ["  " + p.render() for p in self.problems])


class SaveError(InputError):
    """A save file is missing, corrupt, truncated or from another world."""


class ActionError(ParleyError):
    """An action the rules cannot carry out (reported as an event, never raised to the user)."""


class NotInjected(RuntimeError):
    """The engine needed a factory its caller did not inject (the engine knows no agents)."""

    def __init__(self, factory: str, why: str):
        super().__init__(
            f"{why}, but no {factory} was injected into the Engine: build games through "
            f"game.play (Game, compose) or game.testing.standard_engine, which inject the standard ones"
        )


@contextlib.contextmanager
def blamed_on(part: str) -> Iterator[None]:
    """Tag an exception raised inside with the part of a saved state being restored
    (``save_part``, e.g. ``components.facts``), so a refused save names where it is damaged."""
    try:
        yield
    except Exception as e:
        if not hasattr(e, "save_part"):
            with contextlib.suppress(AttributeError, TypeError):
                e.save_part = part  # type: ignore[attr-defined]
        raise
