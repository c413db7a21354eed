"""Small JSON Schema builders for the replies LLM agents are asked for, narrowed to what is legal now.

A server that constrains its output to a schema (OpenAI's ``json_schema``, llama.cpp's
``json_object`` with a ``schema``) can then only write a legal reply: a command open to the
player, a value the issue takes, evidence the speaker holds. The replies are still validated
by their pydantic models, for servers that ignore schemas.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def obj(properties: Mapping[str, Any], optional: Iterable[str] = ()) -> dict[str, Any]:
    """An object with exactly ``properties``, all required but ``optional``, nothing else."""
    skip = set(optional)
    return {
        "type": "object",
        "properties": dict(properties),
        "required": [k for k in properties if k not in skip],
        "additionalProperties": False,
    }


def one_of(values: Iterable[Any], nullable: bool = False) -> dict[str, Any]:
    """One of ``values`` (JSON values, objects too), or null when ``nullable``."""
    listed = list(values)
    return {"enum": [*listed, None] if nullable else listed}


def text(max_length: int, min_length: int = 1) -> dict[str, Any]:
    """A string of ``min_length`` to ``max_length`` characters (not empty unless ``min_length=0``:
    a required field the model leaves empty fails the reply's model and costs a repair)."""
    return {"type": "string", "minLength": min_length, "maxLength": max_length}


def number(low: float, high: float, step: float = 0.05) -> dict[str, Any]:
    """A number from ``low`` to ``high`` in steps of ``step``, as an enum: grammar-constrained servers
    (llama.cpp's included) ignore ``minimum`` and ``maximum`` on numbers, but not an enum."""
    n = round((high - low) / step)
    return {"enum": [round(low + i * step, 6) for i in range(n + 1)]}


def array(items: dict[str, Any], max_items: int, min_items: int = 0) -> dict[str, Any]:
    return {"type": "array", "items": items, "minItems": min_items, "maxItems": max_items}


def variants(*options: dict[str, Any]) -> dict[str, Any]:
    """One of several object shapes (the only one when there is one)."""
    return options[0] if len(options) == 1 else {"oneOf": list(options)}


def numbered(n: int, key: str, rest: Mapping[str, Any]) -> dict[str, Any]:
    """An array of exactly ``n`` objects, the i-th with ``key`` = i (1..n) and ``rest``: one answer for
    each numbered item, in order, none skipped or repeated."""
    items = [obj({key: {"const": i}, **rest}) for i in range(1, n + 1)]
    return {"type": "array", "prefixItems": items, "minItems": n, "maxItems": n}
