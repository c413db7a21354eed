"""The building blocks of every config model: a strict frozen base (unknown keys are errors) and
the annotated field types worlds and scenes share (ids, names written as text or numbers, utilities)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

Id = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$", description="lower_snake identifier")]
WorldId = Annotated[
    str, Field(pattern=r"^[a-z][a-z0-9-]*-v[0-9]+$", description="world id with version, e.g. harbor-v1")
]
Unit = Annotated[float, Field(ge=0.0, le=1.0)]


def _as_name(v: Any) -> Any:
    """A number written where a name is expected, as its shortest written form (5 -> "5",
    5.0 -> "5", 2.5 -> "2.5"); anything else unchanged (so booleans and tables stay errors)."""
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float) and v == v and v not in (float("inf"), float("-inf")):
        return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)
    return v


def _not_blank(v: str) -> str:
    """A name is something to type or read: not empty, not only spaces."""
    if not v.strip():
        raise ValueError("a name must not be empty or blank")
    return v


Name = Annotated[
    str,
    BeforeValidator(_as_name),
    AfterValidator(_not_blank),
    WithJsonSchema(
        {"type": ["string", "number"], "description": 'text; a number is read as its written form (5 -> "5")'}
    ),
]
"""A name-like string that may be written as a number."""


class Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
