"""The building blocks of the save schemas of memory (``memory.state_schema``): the bounds, strict
leaf types and the base model every saved part of memory is checked with.

Strict means what a save holds is what the code reading it assumes: a float is a JSON number
(never a string, never a bool, never NaN or infinity), an int is an integer (a bool is not), a
flag is true or false. Every string, list and mapping has a bound, generous for a save of tens
of megabytes; a key the code does not know is refused.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

MAX_NAME = 512  # an id, a name, a topic, a relation, a scope
MAX_TEXT = 200_000  # one remembered line, a fact's text, a decision's reason
MAX_ITEMS = 1_000_000  # records, facts, decisions, claims, cache rows in one save
MAX_KEYS = 100_000  # agents, peers, topics, heard triples: the keys of one mapping
MAX_REFS = 100_000  # the records one reflection points to, the sources of one fact
MAX_DIM = 4_097  # Σ-Mem's r: 4,096 dimensions plus the shared one
MAX_SIGMA_CELLS = 16_000_000  # peers x r x r numbers in Σ-Mem's M (128 MB of float64)
MAX_SIGMA_ABS = 1e12  # |a number| in Σ-Mem's arrays (they grow by about 1 per verified event)
MAX_INT = 2**53  # the largest integer a JSON reader keeps exactly
MAX_REPORTED = 20  # problems named in one error


class Strict(BaseModel):
    """A saved part: unknown keys refused, no NaN or infinity, the input never changed."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True, hide_input_in_errors=False)


Name = Annotated[StrictStr, Field(min_length=1, max_length=MAX_NAME)]
Label = Annotated[StrictStr, Field(max_length=MAX_NAME)]  # may be empty (a topic a claim was filed under)
Text = Annotated[StrictStr, Field(max_length=MAX_TEXT)]
Count = Annotated[StrictInt, Field(ge=0, le=MAX_INT)]
Turn = Count
Seq = Annotated[StrictInt, Field(ge=1, le=MAX_INT)]
Real = StrictFloat  # finite by the models' config (allow_inf_nan=False)
Unit = Annotated[StrictFloat, Field(ge=0.0, le=1.0)]
Signed = Annotated[StrictFloat, Field(ge=-1.0, le=1.0)]
Flag = StrictBool
Triple = tuple[Label, Label, Label]  # subject, relation, object


def many(item: Any, limit: int = MAX_ITEMS) -> Any:
    """A bounded list of ``item``."""
    return Annotated[list[item], Field(max_length=limit)]


def table(key: Any, value: Any, limit: int = MAX_KEYS) -> Any:
    """A bounded mapping from ``key`` to ``value``."""
    return Annotated[dict[key, value], Field(max_length=limit)]


def numbered(ident: str, prefix: str) -> int | None:
    """The number of an id written ``<prefix><n>`` (``m12``: 12), None for any other id."""
    rest = ident[len(prefix) :] if ident.startswith(prefix) else ""
    return int(rest) if rest.isdigit() and len(rest) < 20 else None


def problem(loc: tuple, message: str) -> InitErrorDetails:
    """One problem at ``loc`` (a path inside the model checked) for :func:`raise_all`."""
    return InitErrorDetails(type=PydanticCustomError("link", "{message}", {"message": message}), loc=loc, input=None)


def raise_all(errors: list[InitErrorDetails], title: str) -> None:
    """Raise the problems found as one ``ValidationError`` (each with its path), or nothing."""
    if errors:
        raise ValidationError.from_exception_data(title, errors[:MAX_REPORTED])
