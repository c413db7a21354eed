"""The schema of a whole ``save.json``: every field's type, size and closed vocabulary.

A save is checked in two steps before anything runs on it:

1. ``check_save(data, path)``: the shape, with no world at hand (this module). Strict types (a
   string is never read as a number, ``true`` never as 1), bounded strings and lists, unknown keys
   refused, closed vocabularies (event kinds, negotiation moves, council statuses...) as enums.
   Agent memory and world-fact memory are checked by ``memory.state_schema`` (``MemoryState``,
   ``FactsState`` and the links between them).
2. ``game.play.save_world.check_save_world(data, world, path)``: the ids that must name
   something of the save's world.

Both raise one ``SaveError`` whose message names the file and the field path, e.g.
``saves/x/save.json: engine.state.gold.player: expected a whole number, got 'many'``.
Validation only reads: the data (and so the state hash over it) is never changed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    JsonValue,
    StringConstraints,
    Tag,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from game.core.errors import SaveError
from game.core.text import escape_surrogates, shown
from game.core.types import EventKind
from memory.state_schema import FactsState, MemoryState, check_links

MAX_ID = 200  # an id: a place, item, NPC, scene, quest, fact...
MAX_TEXT = 100_000  # a line of prose
MAX_LIST = 100_000  # events, debate steps, history moves
MAX_MAP = 10_000  # entries of a map keyed by ids
_LONE = re.compile("[\ud800-\udfff]")  # a lone surrogate: text a game may hold, unreadable as UTF-8
HINT = "the save is damaged or was edited; it was left as it is"

Id = Annotated[str, StringConstraints(max_length=MAX_ID)]
Text = Annotated[str, StringConstraints(max_length=MAX_TEXT)]
Count = Annotated[int, Field(ge=0, le=10**12)]
Gold = Annotated[int, Field(ge=-(10**12), le=10**12)]
Share = Annotated[float, Field(ge=0.0, le=1.0)]
Hex16 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{16}$")]
U128 = Annotated[int, Field(ge=0, lt=2**128)]


class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False)


# --- header ------------------------------------------------------------------------------------


class WorldRef(Strict):
    id: Id
    hash: Annotated[str, StringConstraints(max_length=64)]
    path: Annotated[str, StringConstraints(max_length=4096)]


LLMValue = Annotated[str, StringConstraints(max_length=4096)] | int | float | bool | None


def invalid(message: str) -> PydanticCustomError:
    """A problem with a value, told as ``message`` (``describe`` shows it as it is)."""
    return PydanticCustomError("link", "{message}", {"message": message})


def public_llm(table: dict[str, Any] | None) -> dict[str, Any] | None:
    """The ``llm`` header holds only what ``LLMConfig.public_dict`` writes: its public settings
    (never ``api_key``, nor a key it does not have) and a base URL with nothing to hide (no
    ``user:password@``, query or fragment), so no secret is kept in, or shown from, a save."""
    if table is None:
        return None
    from agents.llm.config import LLMConfig, redact_url  # the LLM's settings: loaded when a save has them

    public = set(LLMConfig.model_fields) - {"api_key"}
    for key, value in table.items():
        if key not in public:
            raise invalid(f"{key!r} is not a public LLM setting")
        if key == "base_url" and isinstance(value, str) and redact_url(value) != value:
            raise invalid(f"base_url {redact_url(value)!r} holds credentials, a query or a fragment")
    return table


# --- engine ------------------------------------------------------------------------------------


class RngInner(Strict):
    state: U128
    inc: U128


class Rng(Strict):
    """A numpy PCG64 generator's state (``Generator.bit_generator.state``)."""

    bit_generator: Literal["PCG64"]
    state: RngInner
    has_uint32: Annotated[int, Field(ge=0, le=1)]  # a Literal would take true for 1
    uinteger: Annotated[int, Field(ge=0, lt=2**32)]

    @field_validator("state")
    @classmethod
    def _odd_increment(cls, inner: RngInner) -> RngInner:
        if inner.inc % 2 == 0:  # PCG64 makes its increment odd; an even one is no stream it seeds
            raise invalid(f"inc {inner.inc} is even (a PCG64 increment is odd)")
        return inner


class SavedEvent(Strict):
    turn: Count
    seq: Count
    kind: Kind
    actor: Id
    text: Text
    location: Id | None = None
    perceivers: Annotated[list[Id], Field(max_length=MAX_MAP)] = []
    public: bool = False
    data: dict[Id, JsonValue] = {}


Kind = Literal[tuple(k.value for k in EventKind)]  # type: ignore[valid-type]
NegotiationMove = Literal["offer", "accept", "reject", "walk_away"]
NegotiationStatus = Literal["open", "agreement", "no_agreement", "walked_away"]


Terms = Annotated[dict[Id, Id], Field(max_length=1000)]


IdList = Annotated[list[Id], Field(max_length=MAX_MAP)]


def _distinct(ids: list[str]) -> list[str]:
    seen: set[str] = set()
    for v in ids:
        if v in seen:
            raise invalid(f"{v!r} is listed twice")
        seen.add(v)
    return ids


def _sorted_set(ids: list[str]) -> list[str]:
    _distinct(ids)
    for a, b in zip(ids, ids[1:], strict=False):
        if b < a:
            raise invalid(f"{b!r} comes after {a!r} (a set is saved sorted)")
    return ids


Distinct = Annotated[IdList, AfterValidator(_distinct)]  # a list in the order things happened
IdSet = Annotated[IdList, AfterValidator(_sorted_set)]  # a set, as GameState.to_dict writes it


class HistoryMove(Strict):
    round: Count
    party: Id
    kind: NegotiationMove
    terms: Terms | None = None


class Standing(Strict):
    party: Id
    terms: Terms


class NegotiationState(Strict):
    """``game.negotiation.session.Negotiation.get_state`` (fields past ``history`` may be absent)."""

    version: Annotated[int, Field(ge=1, le=1)]
    parties: Annotated[list[Id], Field(min_length=2, max_length=2)]
    history: Annotated[list[HistoryMove], Field(max_length=MAX_LIST)] = []
    first: Id | None = None
    deadline: Count | None = None
    status: NegotiationStatus | None = None
    round: Count | None = None
    moves: Count | None = None
    turn: Id | None = None
    standing: Standing | None = None
    agreement: Terms | None = None
    walked_away_by: Id | None = None


class TradeScene(Strict):
    session: NegotiationState | None = None
    outcome: Literal["agreement", "no_agreement"] | None = None
    metrics: dict[Id, JsonValue] | None = None


class DebateReply(Strict):
    kind: Id
    text: Text
    stance: float
    confidence: float
    evidence: Id | None = None
    target: Annotated[int, Field(ge=0, le=MAX_LIST)] | None = None
    aspect: Text | None = None


class SayStep(Strict):
    op: Literal["say"]
    member: Id
    reply: DebateReply
    tokens: Count = 0


class EndStep(Strict):
    op: Literal["end"]


class HearStep(Strict):
    op: Literal["hear"]
    speaker: Id
    text: Text


class DebateEvidence(Strict):
    id: Id
    aspect: Text
    direction: Annotated[int, Field(ge=-1, le=1)]  # 0 is refused when the debate is rebuilt
    weight: float
    text: Text
    gist: Text = ""


class BringStep(Strict):
    op: Literal["bring"]
    member: Id
    evidence: DebateEvidence
    stance: float
    text: Text | None = None
    persuadability: float | None = None


def _op(step: Any) -> str | None:
    return f"~{step.get('op')}" if isinstance(step, dict) else None


DebateStep = Annotated[
    Annotated[SayStep, Tag("~say")]
    | Annotated[EndStep, Tag("~end")]
    | Annotated[HearStep, Tag("~hear")]
    | Annotated[BringStep, Tag("~bring")],
    Discriminator(_op, custom_error_type="debate_op", custom_error_message="unknown debate step"),
]


Stance = Literal["for", "against", "undecided"]
CouncilStatus = Literal["debating", "passed", "failed"]


class CouncilScene(Strict):
    status: CouncilStatus
    round: Count
    announced: bool = False
    stances: Annotated[dict[Id, Stance], Field(max_length=MAX_MAP)]
    persuaded: Distinct = []
    votes: Annotated[dict[Id, Literal["yes", "no"]], Field(max_length=MAX_MAP)] | None = None
    outcome: CouncilStatus | None = None
    debate: Annotated[list[DebateStep], Field(max_length=MAX_LIST)] | None = None


def _scene_kind(scene: Any) -> str:
    return "~council" if isinstance(scene, dict) and "status" in scene else "~trade"


SceneState = Annotated[
    Annotated[TradeScene, Tag("~trade")] | Annotated[CouncilScene, Tag("~council")], Discriminator(_scene_kind)
]


class EngineGameState(Strict):
    """``game.engine.state.GameState.to_dict`` (``lit`` is absent when empty)."""

    turn: Count
    where: Annotated[dict[Id, Id], Field(max_length=MAX_MAP)]
    item_at: Annotated[dict[Id, Id], Field(max_length=MAX_MAP)]
    gold: Annotated[dict[Id, Count], Field(max_length=MAX_MAP)]  # a price is never more than the buyer has
    unlocked: IdSet
    opened: IdSet
    gave: IdSet
    lit: IdSet = []
    verified: Annotated[dict[Id, bool], Field(max_length=MAX_MAP)]
    scenes: Annotated[dict[Id, SceneState], Field(max_length=MAX_MAP)]
    active_scene: Id | None
    quests_done: Distinct
    score: Gold
    invalid: Annotated[dict[Id, Count], Field(max_length=MAX_MAP)]
    done: bool
    won: bool

    @field_validator("won")
    @classmethod
    def _won_ends(cls, won: bool, info: ValidationInfo) -> bool:
        if won and info.data.get("done") is False:
            raise invalid("a won game is done (done is false)")
        return won


class EngineState(Strict):
    """``game.engine.loop.Engine.get_state`` (``asks`` and ``recent`` are absent in older saves)."""

    state: EngineGameState
    rng: Rng
    seq: Count
    seed: Count
    asks: Count = 0
    recent: Annotated[dict[Id, Annotated[list[SavedEvent], Field(max_length=MAX_LIST)]], Field(max_length=MAX_MAP)] = {}


# --- components --------------------------------------------------------------------------------


class AgentState(Strict):
    """An NPC agent's ``get_state``: its body's (idle: nothing; wanderer: its random stream;
    patrol or scripted: its place in the route or script)."""

    rng: Rng | None = None
    i: Annotated[int, Field(ge=0, le=MAX_LIST)] | None = None


class Components(Strict):
    agents: Annotated[dict[Id, AgentState], Field(max_length=MAX_MAP)] = {}
    memory: MemoryState | None = None
    facts: FactsState | None = None


class Save(Strict):
    """A whole ``save.json`` (format 2)."""

    format_version: Annotated[int, Field(ge=2, le=2)]
    seed: Count
    turn: Count
    world: WorldRef
    transcript: Hex16
    state_hash: Hex16
    llm: Annotated[dict[Id, LLMValue], Field(max_length=64)] | None = None
    facts_rebuilt: Count | None = None  # the turn world-fact memory was rebuilt from the transcript
    engine: EngineState
    components: Components

    @field_validator("llm")
    @classmethod
    def _public_llm(cls, table: dict[str, Any] | None) -> dict[str, Any] | None:
        return public_llm(table)


# --- messages ----------------------------------------------------------------------------------


def field_path(loc: tuple[Any, ...], data: Any = None) -> str:
    """``('components', 'memory', 'bank', 'records', 3, 'importance')`` as
    ``components.memory.bank.records[3].importance``. With ``data``, the parts of ``loc`` that do
    not lead into it (the tags of a union's members) are left out."""
    out, node = "", data
    for n, part in enumerate(loc):
        if data is not None:
            last = n == len(loc) - 1
            if isinstance(node, dict) and isinstance(part, str) and (part in node or last):
                node = node.get(part)
            elif isinstance(node, list) and isinstance(part, int):  # past the end: a missing item
                node = node[part] if 0 <= part < len(node) else None
            else:
                continue
        if isinstance(part, int):
            out += f"[{part}]"
        elif data is not None or not part.startswith("~"):
            part = part if len(part) <= 80 else part[:77] + "..."  # a key of any length is named briefly
            out += f".{part}" if out else part
    return out


_EXPECTED = {
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "string_type": "text",
    "bool_type": "true or false",
    "dict_type": "an object",
    "list_type": "a list",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "none_required": "null",
}


def _value(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def describe(err: dict[str, Any]) -> str:
    """One pydantic error as a short sentence: what was expected, what was found."""
    kind, got = err["type"], err.get("input")
    if kind == "missing" and isinstance(got, list):  # a fixed-length list too short
        return f"missing (the list has {len(got)} item{'' if len(got) == 1 else 's'})"
    if kind == "missing":
        return "missing"
    if kind == "extra_forbidden":
        return "unknown key"
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {_value(got)}"
    if kind in ("enum", "literal_error"):
        return f"expected {err.get('ctx', {}).get('expected', 'a known value')}, got {_value(got)}"
    if kind == "link":
        return err["msg"]
    if kind == "debate_op" and not isinstance(got, dict):
        return f"expected an object, got {_value(got)}"
    if kind == "debate_op":
        return f"unknown debate step {_value(got.get('op') if isinstance(got, dict) else got)}"
    if kind in ("too_long", "string_too_long"):
        return f"too long ({err['msg'].lower()})"
    return f"{err['msg'][:1].lower()}{err['msg'][1:]}, got {_value(got)}"


def save_error(path: Path | str, e: ValidationError, data: Any = None) -> SaveError:
    """The first problem of a failed validation as a SaveError naming file and field path."""
    errors = e.errors(include_url=False)
    first = errors[0]
    where = field_path(tuple(first["loc"]), data)
    if first["type"] == "debate_op" and isinstance(first.get("input"), dict):
        where += ".op"  # the step is told by its op
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    return SaveError(f"{path}: {where}: {describe(first)}{more}", hint=HINT)


def check_save(data: Any, path: Path | str) -> None:
    """Refuse a ``save.json`` whose shape is not a save's (see the module docstring). Reads only."""
    plain = _encodable(data)
    try:
        save = Save.model_validate(plain)
        check_links(save.components.memory, save.components.facts)
    except ValidationError as e:
        raise save_error(path, e, plain) from None
    except RecursionError:
        raise SaveError(f"{path}: nested too deeply", hint=HINT) from None


def _encodable(value: Any) -> Any:
    """``value`` with lone surrogates in its strings escaped (text a game may hold, which the
    validator cannot read): a copy where one is needed, the input itself left as it is."""
    if isinstance(value, str):
        return escape_surrogates(value) if _LONE.search(value) else value
    if isinstance(value, dict):
        return {_encodable(k): _encodable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_encodable(v) for v in value]
    return value


def problem(path: Path | str, where: str, what: str) -> SaveError:
    """A SaveError for one field of a save, in the schema's format."""
    return SaveError(f"{path}: {where}: {shown(what)}", hint=HINT)
