"""The world spec: pydantic models for a world folder.

One set of models is both the validator and the source of the JSON Schema
(``worlds/schema/world.schema.json``), so the two cannot drift. Every model
forbids unknown keys. Cross-references (exits, items, NPC locations, facts,
scene parties, agent parameters) are checked in ``game.world.checks``.

Values that are names (issue values, the keys of a party's ``values``, fact
subjects and objects, names, titles, aliases) may be written as numbers:
``price = [5, 10, 15]`` reads as ``["5", "10", "15"]`` (a number becomes the
text Python writes for it: 5 -> "5", 2.5 -> "2.5"). Booleans stay errors.

A trade's player party has a default (``trade_party_default``): leave it out,
or give only ``id = "player"``, and the player prefers a lower price (or, as
the seller, a higher one), linearly from 1 to 0, with every other issue neutral.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict, Field, WithJsonSchema, model_validator

from game.core.protocols import AgentKinds
from game.core.specs import Id, Name, Spec, Unit, WorldId, _as_name  # noqa: F401  (the shared field types)
from game.core.types import DIRECTIONS
from game.negotiation.spec import NegotiationScene, PartySpec, TradeSpec, trade_party_default  # noqa: F401  (re-exported)
from game.world import limits as L

Direction = Literal[DIRECTIONS]  # type: ignore[valid-type]


# --- places and things -------------------------------------------------------


class LockSpec(Spec):
    key: Id = Field(description="item id that unlocks it")
    name: Name = Field("door", description="what the player calls it: door, gate, hatch")
    message: str = Field("It is locked.", description="shown when the way is barred")
    opens: Literal["unlock", "carry", "light"] = Field(
        "unlock",
        description=(
            "how the key opens the way: 'unlock' (unlock it with the key), 'carry' (carrying the key"
            " is enough) or 'light' (carrying the key lit: the key is a light source)"
        ),
    )


class ScenerySpec(Spec):
    """Something named in a room's text that can be examined but never taken (beams, a bell, a barometer)."""

    name: Name = Field(description="what the player calls it")
    aliases: list[Name] = Field(default_factory=list, max_length=L.MAX_ALIASES, description="other words for it")
    description: str = Field(description="what examining it shows")


class MapSpec(Spec):
    """Where a location is drawn on the map (``parley map``): a grid cell, x to the east, y to the south."""

    x: int = Field(ge=-1000, le=1000, description="column; larger is further east")
    y: int = Field(ge=-1000, le=1000, description="row; larger is further south")


class LocationSpec(Spec):
    name: Name
    description: str
    exits: dict[Direction, Id] = Field(default_factory=dict)
    locked: dict[Direction, LockSpec] = Field(default_factory=dict, description="exits that need a key")
    items: list[Id] = Field(default_factory=list, max_length=L.MAX_HELD)
    scenery: dict[Id, ScenerySpec] = Field(
        default_factory=dict,
        max_length=L.MAX_SCENERY,
        description="things named in the description: examinable, fixed in place",
    )
    map: MapSpec | None = Field(None, description="grid cell on the map; left out, it is placed from the exits")


class ItemSpec(Spec):
    name: Name
    aliases: list[Name] = Field(default_factory=list, max_length=L.MAX_ALIASES)
    description: str = ""
    value: int = Field(0, ge=0, description="worth in gold")
    portable: bool = True
    light: bool = Field(False, description="a light source: 'light X' lights it")
    container: bool = False
    contents: list[Id] = Field(default_factory=list, max_length=L.MAX_HELD, description="items inside a container")
    locked_with: Id | None = Field(None, description="key item id for a locked container")
    reveals: list[Id] = Field(
        default_factory=list, max_length=L.MAX_HELD, description="facts verified when the container is opened"
    )
    shows: list[Id] = Field(
        default_factory=list,
        max_length=L.MAX_HELD,
        description="facts its description settles: examining it verifies them (as true or false, as the world holds them)",
    )


# --- people -----------------------------------------------------------------


class AgentSpec(Spec):
    """How an NPC acts. ``params`` are checked against the kind's parameter model in
    ``agents.registry`` (at load, by ``game.world.checks``; the JSON Schema lists them per kind)."""

    kind: str = Field("idle", description="agent kind from the registry")
    params: dict[str, Any] = Field(default_factory=dict, description="the kind's parameters")


class HonestySpec(Spec):
    default: Unit = Field(1.0, description="probability of telling the truth on any topic")
    topics: dict[str, Unit] = Field(default_factory=dict, max_length=L.MAX_HELD, description="per-topic override")

    def for_topic(self, topic: str) -> float:
        return self.topics.get(topic, self.default)


class NpcSpec(Spec):
    name: Name
    aliases: list[Name] = Field(default_factory=list, max_length=L.MAX_ALIASES)
    persona: str = ""
    location: Id
    inventory: list[Id] = Field(default_factory=list, max_length=L.MAX_HELD)
    gold: int = Field(0, ge=0)
    knowledge: list[Id] = Field(default_factory=list, max_length=L.MAX_HELD, description="fact ids the NPC can tell")
    honesty: HonestySpec = Field(default_factory=HonestySpec)
    agent: AgentSpec = Field(default_factory=AgentSpec)
    greeting: str = ""
    trade: Id | None = Field(None, description="negotiation scene opened by `trade with`")
    wants: dict[Id, int] = Field(
        default_factory=dict, max_length=L.MAX_HELD, description="items this NPC rewards when given: item -> points"
    )
    thanks: dict[Id, str] = Field(
        default_factory=dict,
        max_length=L.MAX_HELD,
        description="what this NPC says when given an item it wants: item -> their words (left out: a plain thank-you)",
    )
    lines: dict[
        Literal["greet", "answer", "refuse", "rumour", "haggle"], Annotated[list[str], Field(max_length=L.MAX_LINES)]
    ] = Field(
        default_factory=dict,
        description="dialogue templates by intent, one picked at random; placeholders: {name} "
        "(the NPC), {player}, {topic}, {text} (the fact told), {terms} (an offer; haggle "
        "lines go with the NPC's offers)",
    )
    rumour: Unit = Field(0.0, description="chance that greeting this NPC also draws a rumour")


class PlayerSpec(Spec):
    name: Name = "Traveller"
    location: Id | None = Field(None, description="defaults to the world's start")
    inventory: list[Id] = Field(default_factory=list, max_length=L.MAX_HELD)
    gold: int = Field(0, ge=0)


# --- knowledge ----------------------------------------------------------------


class FactSpec(Spec):
    subject: Name
    relation: Id
    object: Name
    text: str
    topic: Id
    true: bool = Field(True, description="whether it holds in this world")


class RelationSpec(Spec):
    functional: bool = Field(False, description="at most one object per subject")
    description: str = ""
    range: tuple[float, float] | None = Field(None, description="numeric objects must lie in [low, high]")
    temporal: Literal["before", "after"] | None = Field(
        None, description="the subject happens before / after the object (reversals contradict)"
    )
    thresholds: tuple[Unit, Unit] | None = Field(
        None, description="consistency gate (reject below, admit from) for claims with this relation"
    )
    aliases: list[Name] = Field(
        default_factory=list,
        max_length=L.MAX_ALIASES,
        description='other words for it, in claims and in what NPCs say ("costs", "is hidden in")',
    )
    unit: Name | None = Field(
        None,
        description="the unit its numbers are in: a unit id from [units] (a number in another declared unit is "
        'converted to it, one in a unit it cannot convert from is another value), or a free word ("gold"): '
        '"20 gold" reads as 20',
    )
    kind: Literal["entity", "number", "time", "text"] | None = Field(
        None,
        description="what its values are: entities (ids and names), numbers (in its unit), times of day "
        '("9 pm", "half past six", "21:00", a [clock] name) or text; left out, a number when range or unit is set',
    )
    changes: bool = Field(
        False,
        description="its value changes over time (things move, prices change): an old "
        "value, even a verified one, can give way to a credible newer report",
    )
    half_life: float = Field(
        30.0, gt=0, le=1e6, description="turns for an old value's weight to halve, when it changes"
    )
    observed: Literal["location", "trade", "gift", "key"] | None = Field(
        None,
        description='what an agent sees that settles it: "location" reads it as where a thing is (the room it '
        "lies in, or who carries it), so a thing seen somewhere, or missed where it would be in plain sight, is "
        'evidence for that agent; "trade": a trade the agent closed shows the seller sells the thing (thing '
        'relation seller); "gift": a gift it gave that was welcomed shows the receiver wants it (receiver '
        'relation thing); "key": a lock it opened shows the key opens it (key relation thing or exit)',
    )


# --- units and the clock ---------------------------------------------------------


class UnitSpec(Spec):
    """A unit numbers may be given in ("12 pennies"). One with a ``base`` converts to it:
    1 of this unit is ``factor`` of the base ("penny": base "mark", factor 1/12)."""

    aliases: list[Name] = Field(
        default_factory=list, max_length=L.MAX_ALIASES, description='other words for it ("marks", "pence")'
    )
    base: Id | None = Field(None, description="the declared unit it converts to")
    factor: float = Field(1.0, gt=0, allow_inf_nan=False, description="how many of the base one of this unit is worth")


CLOCK_TIME = r"^([01]?[0-9]|2[0-3]):[0-5][0-9]$"


def _clock_time(v: Any) -> Any:
    if isinstance(v, str) and re.fullmatch(CLOCK_TIME, v.strip()):
        return v.strip()
    raise ValueError('a clock time is HH:MM on the 24-hour clock ("19:00")')


ClockTime = Annotated[
    str,
    BeforeValidator(_clock_time),
    WithJsonSchema({"type": "string", "pattern": CLOCK_TIME, "description": 'HH:MM, 24-hour ("19:00")'}),
]


# --- quests -----------------------------------------------------------------


class HasItem(Spec):
    kind: Literal["has"]
    item: Id


class AtLocation(Spec):
    kind: Literal["at"]
    location: Id


class ItemAt(Spec):
    kind: Literal["item_at"]
    item: Id
    location: Id


class GaveTo(Spec):
    kind: Literal["gave"]
    item: Id
    npc: Id


class Opened(Spec):
    kind: Literal["opened"]
    item: Id


class SceneOutcome(Spec):
    kind: Literal["scene"]
    scene: Id
    outcome: Literal["agreement", "passed", "failed", "no_agreement"]


Condition = Annotated[HasItem | AtLocation | ItemAt | GaveTo | Opened | SceneOutcome, Field(discriminator="kind")]


class RewardSpec(Spec):
    score: int = 0
    gold: int = Field(0, ge=0)
    items: list[Id] = Field(default_factory=list, max_length=L.MAX_GOALS)


class QuestSpec(Spec):
    title: Name
    description: str = ""
    goal: list[Condition] = Field(min_length=1, max_length=L.MAX_GOALS, description="all must hold")
    reward: RewardSpec = Field(default_factory=RewardSpec)


# --- scenes -----------------------------------------------------------------


class ParticipantSpec(Spec):
    id: str = Field(description="'player' or an NPC id")
    role: str = "member"
    stance: Literal["for", "against", "undecided"] = "undecided"
    arguments: list[str] = Field(
        default_factory=list, max_length=L.MAX_ARGUMENTS, description="argument bank for the starting stance"
    )
    converted: list[str] = Field(
        default_factory=list,
        max_length=L.MAX_ARGUMENTS,
        description="argument bank once persuaded to support the motion",
    )
    persuaded_by: list[Id] = Field(
        default_factory=list, max_length=L.MAX_ARGUMENTS, description="items that, shown to them, win their vote"
    )


class CouncilDebateSpec(Spec):
    """A council whose NPC members debate (``game.council``): each round every member speaks from
    its own masked memory of the debate, and stances move with what is said and shown."""

    masking: Literal["none", "window", "dedupe", "memo", "objective"] = Field(
        "memo", description="how each member's working memory of the debate is masked"
    )
    budget: int = Field(200, ge=16, le=100_000, description="context tokens each member reads per turn")
    speaker_policy: Literal["fixed", "random", "most-controversial", "most-uncertain"] = "fixed"
    evidence_weight: float = Field(
        2.0, gt=0, le=10, description="weight of an item that persuades a member, once it is stated to the council"
    )


class CouncilScene(Spec):
    type: Literal["council"]
    title: Name
    motion: str
    description: str = ""
    participants: list[ParticipantSpec] = Field(min_length=2, max_length=L.MAX_PARTICIPANTS)
    max_rounds: int = Field(3, ge=1)
    location: Id | None = Field(None, description="where the council sits")
    majority: float = Field(0.5, gt=0.0, lt=1.0, description="share of yes votes needed (strictly more)")
    debate: CouncilDebateSpec | None = Field(
        None, description="members debate with masked memories (None: each speaks from its argument bank)"
    )


Scene = Annotated[NegotiationScene | CouncilScene, Field(discriminator="type")]


# --- the world --------------------------------------------------------------


class WorldSpec(Spec):
    """A whole world: what ``worlds/<id>/world.toml`` (plus extra files) describes."""

    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra={"title": "Parley world"})

    id: WorldId
    title: Name
    intro: str = ""
    start: Id = Field(description="starting location id")
    max_turns: int = Field(500, ge=1)
    player: PlayerSpec = Field(default_factory=PlayerSpec)
    locations: dict[Id, LocationSpec] = Field(min_length=1, max_length=L.MAX_LOCATIONS)
    items: dict[Id, ItemSpec] = Field(default_factory=dict, max_length=L.MAX_ITEMS)
    npcs: dict[Id, NpcSpec] = Field(default_factory=dict, max_length=L.MAX_NPCS)
    relations: dict[Id, RelationSpec] = Field(default_factory=dict, max_length=L.MAX_RELATIONS)
    facts: dict[Id, FactSpec] = Field(default_factory=dict, max_length=L.MAX_FACTS)
    quests: dict[Id, QuestSpec] = Field(default_factory=dict, max_length=L.MAX_QUESTS)
    scenes: dict[Id, Scene] = Field(default_factory=dict, max_length=L.MAX_SCENES)
    units: dict[Id, UnitSpec] = Field(
        default_factory=dict, max_length=L.MAX_UNITS, description="units numbers may be given in, and how they convert"
    )
    clock: dict[str, ClockTime] = Field(
        default_factory=dict,
        max_length=L.MAX_CLOCK,
        description='named times of day: dusk = "19:00" ("opens at dusk" is 19:00)',
    )

    @model_validator(mode="after")
    def _ids_disjoint(self) -> WorldSpec:
        clash = (set(self.items) & set(self.npcs)) | ({"player"} & (set(self.items) | set(self.npcs)))
        if clash:
            raise ValueError(f"ids used for both items and NPCs: {sorted(clash)!r}")
        return self

    @property
    def player_start(self) -> str:
        return self.player.location or self.start


def json_schema(agent_kinds: AgentKinds) -> dict[str, Any]:
    """The JSON Schema for world.toml, as committed in worlds/schema/. ``agent_kinds``: whose
    parameter models describe ``agent.params`` (``game.play.worlds.json_schema`` passes the standard ones)."""
    schema = WorldSpec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    _agent_params_schema(schema, agent_kinds.param_models())
    # allow the `#:schema` directive's editors and the optional $schema key
    return schema


def _agent_params_schema(schema: dict[str, Any], models: Mapping[str, Any]) -> None:
    """Describe ``agent.params`` per kind, from each kind's parameter model (a pydantic model)."""
    defs = schema["$defs"]
    agent = defs["AgentSpec"]
    agent["properties"]["kind"]["enum"] = list(models)
    branches = []
    for kind, model in models.items():
        sub = model.model_json_schema(ref_template="#/$defs/{model}")
        defs.update(sub.pop("$defs", {}))
        defs[model.__name__] = sub
        cond: dict[str, Any] = {"properties": {"kind": {"const": kind}}, "required": ["kind"]}
        if kind == AgentSpec.model_fields["kind"].default:
            cond = {"anyOf": [cond, {"not": {"required": ["kind"]}}]}
        branches.append({"if": cond, "then": {"properties": {"params": {"$ref": f"#/$defs/{model.__name__}"}}}})
    agent["allOf"] = branches
