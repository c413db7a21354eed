"""The world spec: pydantic models for a world folder.

One set of models is both the validator and the source of the JSON Schema
(``worlds/schema/world.schema.json``), so the two cannot drift. Every model
forbids unknown keys. Cross-references (exits, items, NPC locations, facts,
scene parties) are checked in ``game.world.checks``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from game.types import DIRECTIONS

Id = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$", description="lower_snake identifier")]
WorldId = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*-v[0-9]+$",
                               description="world id with version, e.g. harbor-v1")]
Direction = Literal[DIRECTIONS]  # type: ignore[valid-type]
Unit = Annotated[float, Field(ge=0.0, le=1.0)]


class Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- places and things -------------------------------------------------------

class LockSpec(Spec):
    key: Id = Field(description="item id that unlocks it")
    name: str = Field("door", description="what the player calls it: door, gate, hatch")
    message: str = Field("It is locked.", description="shown when the way is barred")


class LocationSpec(Spec):
    name: str
    description: str
    exits: dict[Direction, Id] = Field(default_factory=dict)
    locked: dict[Direction, LockSpec] = Field(default_factory=dict,
                                              description="exits that need a key")
    items: list[Id] = Field(default_factory=list)


class ItemSpec(Spec):
    name: str
    aliases: list[str] = Field(default_factory=list)
    description: str = ""
    value: int = Field(0, ge=0, description="worth in gold")
    portable: bool = True
    container: bool = False
    contents: list[Id] = Field(default_factory=list, description="items inside a container")
    locked_with: Id | None = Field(None, description="key item id for a locked container")
    reveals: list[Id] = Field(default_factory=list,
                              description="facts verified when the container is opened")


# --- people -----------------------------------------------------------------

class AgentSpec(Spec):
    kind: str = Field("idle", description="agent kind from the registry")
    params: dict[str, Any] = Field(default_factory=dict)


class HonestySpec(Spec):
    default: Unit = Field(1.0, description="probability of telling the truth on any topic")
    topics: dict[str, Unit] = Field(default_factory=dict, description="per-topic override")

    def for_topic(self, topic: str) -> float:
        return self.topics.get(topic, self.default)


class NpcSpec(Spec):
    name: str
    aliases: list[str] = Field(default_factory=list)
    persona: str = ""
    location: Id
    inventory: list[Id] = Field(default_factory=list)
    gold: int = Field(0, ge=0)
    knowledge: list[Id] = Field(default_factory=list, description="fact ids the NPC can tell")
    honesty: HonestySpec = Field(default_factory=HonestySpec)
    agent: AgentSpec = Field(default_factory=AgentSpec)
    greeting: str = ""
    trade: Id | None = Field(None, description="negotiation scene opened by `trade with`")
    wants: dict[Id, int] = Field(default_factory=dict,
                                 description="items this NPC rewards when given: item -> points")
    lines: dict[Literal["greet", "answer", "refuse", "rumour", "haggle"], list[str]] = Field(
        default_factory=dict,
        description="dialogue templates by intent, one picked at random; placeholders: {name} "
                    "(the NPC), {player}, {topic}, {text} (the fact told), {terms} (an offer; haggle "
                    "lines go with the NPC's offers)")
    rumour: Unit = Field(0.0, description="chance that greeting this NPC also draws a rumour")


class PlayerSpec(Spec):
    name: str = "Traveller"
    location: Id | None = Field(None, description="defaults to the world's start")
    inventory: list[Id] = Field(default_factory=list)
    gold: int = Field(0, ge=0)


# --- knowledge ----------------------------------------------------------------

class FactSpec(Spec):
    subject: str
    relation: Id
    object: str
    text: str
    topic: Id
    true: bool = Field(True, description="whether it holds in this world")


class RelationSpec(Spec):
    functional: bool = Field(False, description="at most one object per subject")
    description: str = ""
    range: tuple[float, float] | None = Field(None, description="numeric objects must lie in [low, high]")
    temporal: Literal["before", "after"] | None = Field(
        None, description="the subject happens before / after the object (reversals contradict)")
    thresholds: tuple[Unit, Unit] | None = Field(
        None, description="consistency gate (reject below, admit from) for claims with this relation")


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


Condition = Annotated[HasItem | AtLocation | ItemAt | GaveTo | Opened | SceneOutcome,
                      Field(discriminator="kind")]


class RewardSpec(Spec):
    score: int = 0
    gold: int = Field(0, ge=0)
    items: list[Id] = Field(default_factory=list)


class QuestSpec(Spec):
    title: str
    description: str = ""
    goal: list[Condition] = Field(min_length=1, description="all must hold")
    reward: RewardSpec = Field(default_factory=RewardSpec)


# --- scenes -----------------------------------------------------------------

class PartySpec(Spec):
    id: str = Field(description="'player' or an NPC id")
    weights: dict[Id, Annotated[float, Field(ge=0)]] = Field(
        description="issue -> weight (normalised to sum 1)")
    values: dict[Id, dict[str, Unit]] = Field(
        description="issue -> value -> utility of that value in [0, 1]")
    reservation: Unit = Field(0.0, description="utility of no agreement")


class TradeSpec(Spec):
    item: Id = Field(description="item the seller hands over on agreement")
    seller: str
    price_issue: Id = Field(description="issue whose agreed value is the price in gold")


class NegotiationScene(Spec):
    type: Literal["negotiation"]
    title: str
    description: str = ""
    issues: dict[Id, list[str]] = Field(min_length=1, description="issue -> possible values")
    parties: list[PartySpec] = Field(min_length=2, max_length=2)
    deadline: int = Field(10, ge=1, description="rounds before the talks fail")
    first: str | None = Field(None, description="party who opens; defaults to the first")
    trade: TradeSpec | None = None


class ParticipantSpec(Spec):
    id: str = Field(description="'player' or an NPC id")
    role: str = "member"
    stance: Literal["for", "against", "undecided"] = "undecided"
    arguments: list[str] = Field(default_factory=list, description="argument bank for the starting stance")
    converted: list[str] = Field(default_factory=list,
                                 description="argument bank once persuaded to support the motion")
    persuaded_by: list[Id] = Field(default_factory=list,
                                   description="items that, shown to them, win their vote")


class CouncilScene(Spec):
    type: Literal["council"]
    title: str
    motion: str
    description: str = ""
    participants: list[ParticipantSpec] = Field(min_length=2)
    max_rounds: int = Field(3, ge=1)
    location: Id | None = Field(None, description="where the council sits")
    majority: float = Field(0.5, gt=0.0, lt=1.0, description="share of yes votes needed (strictly more)")


Scene = Annotated[NegotiationScene | CouncilScene, Field(discriminator="type")]


# --- the world --------------------------------------------------------------

class WorldSpec(Spec):
    """A whole world: what ``worlds/<id>/world.toml`` (plus extra files) describes."""

    model_config = ConfigDict(extra="forbid", frozen=True,
                              json_schema_extra={"title": "Parley world"})

    id: WorldId
    title: str
    intro: str = ""
    start: Id = Field(description="starting location id")
    max_turns: int = Field(500, ge=1)
    player: PlayerSpec = Field(default_factory=PlayerSpec)
    locations: dict[Id, LocationSpec] = Field(min_length=1)
    items: dict[Id, ItemSpec] = Field(default_factory=dict)
    npcs: dict[Id, NpcSpec] = Field(default_factory=dict)
    relations: dict[Id, RelationSpec] = Field(default_factory=dict)
    facts: dict[Id, FactSpec] = Field(default_factory=dict)
    quests: dict[Id, QuestSpec] = Field(default_factory=dict)
    scenes: dict[Id, Scene] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _ids_disjoint(self) -> WorldSpec:
        clash = (set(self.items) & set(self.npcs)) | ({"player"} & (set(self.items) | set(self.npcs)))
        if clash:
            raise ValueError(f"ids used for both items and NPCs: {sorted(clash)!r}")
        return self

    @property
    def player_start(self) -> str:
        return self.player.location or self.start


def json_schema() -> dict[str, Any]:
    """The JSON Schema for world.toml, as committed in worlds/schema/."""
    schema = WorldSpec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    # allow the `#:schema` directive's editors and the optional $schema key
    return schema
