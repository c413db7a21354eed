"""Command-line values checked by the pydantic models that use them.

A flag whose value ends up in a model (``--rounds`` in ``CouncilConfig.max_rounds``, ``--budget``
in ``MaskingConfig.budget``, ``--llm-timeout`` in ``LLMConfig.timeout``, ...) is declared with
``model_value(Model, "field")`` as its argparse ``type``: argparse hands it the text, the model's
own field (type, bounds, field validators) judges it, and a refusal is argparse's usage error
(exit code 2) naming the flag, e.g. ``argument --rounds: must be at most 200 (got 1000000000000)``.
So the bound lives once, in the model, and the flag cannot drift from it. Floats must be finite
and text must not be empty, whatever the field allows.

Values that only a whole model can judge (one field against another) are checked when the
command builds the model: ``from_flags(Model, {"field": "--flag"}, field=value, ...)`` turns a
``ValidationError`` into an ``InputError`` (exit code 2) that names the flag, not the field.

Only argparse is imported here: pydantic and the models load when a flag is given.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from typing import Any

MAX_SHOWN = 40
"""Characters of a refused value quoted back (a 4,000-digit number is cut)."""


def _cut(text: str) -> str:
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def _got(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)  # a bound of 0.0 reads "above 0"
    return _cut(repr(value) if isinstance(value, str) else str(value))


BOUNDS = ("less_than_equal", "less_than", "greater_than_equal", "greater_than")


def problem(error: Mapping[str, Any], unit: str = "") -> str:
    """One pydantic error (an item of ``ValidationError.errors()``) in plain words, with the
    value that was refused: ``must be at most 200 (got 1000000000000)``; ``unit`` follows a
    bound (``must be at least 16 tokens``)."""
    kind, ctx = error.get("type", ""), error.get("ctx") or {}
    said = {
        "less_than_equal": "must be at most {le}",
        "less_than": "must be below {lt}",
        "greater_than_equal": "must be at least {ge}",
        "greater_than": "must be above {gt}",
        "finite_number": "must be a finite number",
        "int_parsing": "must be a whole number",
        "int_from_float": "must be a whole number",
        "int_type": "must be a whole number",
        "float_parsing": "must be a number",
        "float_type": "must be a number",
        "string_too_short": "must not be empty" if ctx.get("min_length") == 1 else "is too short",
        "string_too_long": "must be at most {max_length} characters",
        "bool_parsing": "must be true or false",
        "literal_error": "must be {expected}",
    }.get(kind)
    if kind == "greater_than_equal" and ctx.get("ge") == 0:
        said = "must be 0 or more"
    if said is None:
        text = str(error.get("msg", "is not valid")).removeprefix("Value error, ")
    else:
        text = said.format(**{k: v if isinstance(v, str) else _got(v) for k, v in ctx.items()})
        if unit and kind in BOUNDS:
            text += f" {unit}"
    whole = isinstance(error.get("input"), dict) or type(error.get("input")).__name__ == "ArgsKwargs"
    if kind in ("missing", "extra_forbidden") or whole:  # a whole model's input is not worth quoting
        return text
    if kind in ("int_parsing", "float_parsing") and isinstance(error.get("input"), str):  # argparse's words
        return f"invalid {kind[:-8]} value: {_got(error['input'])} ({text})"
    return f"{text} (got {_got(error.get('input'))})"


def _loose(annotation: Any) -> Any:
    """The type a flag's text is read as: ``int | None`` -> ``int`` (a flag given is never None)."""
    import types
    import typing

    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        kept = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(kept) == 1:
            return kept[0]
    return annotation


def check_field(model: type, field: str, text: str, unit: str = "") -> Any:
    """``text`` read as ``model``'s ``field`` and judged by the model (its type, bounds and field
    validators): the value, or ``ValueError`` with the refusal in plain words."""
    import math

    from pydantic import TypeAdapter, ValidationError

    info = model.__pydantic_fields__[field]  # a BaseModel's or a pydantic dataclass's
    if not text.strip():
        raise ValueError(f"must not be empty (got {_got(text)})")
    try:
        value = TypeAdapter(_loose(info.annotation)).validate_python(text)
    except ValidationError as e:
        raise ValueError(problem(e.errors()[0])) from None
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"must be a finite number (got {_got(text)})")
    try:  # the whole model, so its field validators and bounds judge the value
        TypeAdapter(model).validate_python({field: value})
    except ValidationError as e:
        mine = [err for err in e.errors() if err["loc"][:1] == (field,)]
        if mine:
            raise ValueError(problem(mine[0], unit)) from None
    return value


def model_class(target: str) -> type:
    """The model ``"package.module:Class"`` names, imported now."""
    import importlib

    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def model_value(target: str, field: str, unit: str = "") -> Callable[[str], Any]:
    """An argparse ``type`` that reads a flag's text as the ``field`` of the model ``target``
    names (``"game.council.session:CouncilConfig"``; imported only when the flag is given) with
    ``check_field``; ``unit`` names what a bound counts."""

    def read(text: str) -> Any:
        try:
            return check_field(model_class(target), field, text, unit)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    read.__name__ = field  # argparse's own messages name the type
    read.model_field = (target, field)  # type: ignore[attr-defined]
    return read


def text_value(text: str) -> str:
    """An argparse ``type`` for a name, a path or an id: anything but empty or blank."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"must not be empty (got {_got(text)})")
    return text


def folder_value(text: str) -> str:
    """An argparse ``type`` for a folder a command reads or makes (``--saves-dir``, ``--llm-cache``,
    ``--out DIR``): not empty; a folder or nothing yet, whose nearest existing parent is a folder.
    A file, a named pipe, a device, a broken link or a name too long is refused before any work
    (only ``stat`` is called: nothing is opened or made)."""
    from game.core.files import folder_problem

    why = folder_problem(text_value(text))
    if why:
        raise argparse.ArgumentTypeError(why)
    return text


def flag_error(error: Exception, flags: Mapping[str, str], what: str = "") -> Exception:
    """A pydantic ``ValidationError`` from a model built from flags, as an ``InputError`` naming
    the flag of each field it refuses (``flags``: field path -> flag; a nested field as
    ``memory.chroma_port``); a field without a flag is named by its path, after ``what``."""
    from game.core.errors import InputError

    lines = []
    for err in error.errors():  # type: ignore[attr-defined]
        path = ".".join(str(p) for p in err["loc"])
        flag = next((flags[p] for p in _prefixes(path) if p in flags), None)
        where = flag or (f"{what}.{path}" if what and path else path or what)
        lines.append(f"{where}: {problem(err)}" if where else problem(err))
    return InputError("; ".join(lines))


def _prefixes(path: str) -> list[str]:
    parts = path.split(".")
    return [".".join(parts[:n]) for n in range(len(parts), 0, -1)]


def from_flags(model: type, flags: Mapping[str, str], /, **values: Any) -> Any:
    """``model(**values)``, or an ``InputError`` (exit code 2) naming the flags behind what it
    refuses (``flag_error``)."""
    from pydantic import ValidationError

    try:
        return model(**values)
    except ValidationError as e:
        raise flag_error(e, flags, model.__name__) from None
