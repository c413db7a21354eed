"""What a tournament is, as a pydantic model read from TOML (``parley tournament CONFIG.toml``).

A tournament has a ``kind`` (negotiation, adventure, council or debate), ``competitors`` (agents with
their parameters), ``scenarios`` (world scenes, generated sets, imported sets), seeds and repetitions.
A ``debate`` tournament's competitors are council debate configurations (a masking mode and its
parameters, scripted or LLM members; ``game.tournament.debate``), its scenarios debate tasks.
``game.tournament.matches`` expands it into matches. Errors name the file, the field and what is
wrong (exit code 2 at the CLI); ``tournament_schema()`` is the JSON Schema editors can use.
Paths in the file (worlds, imported sets, scripts) are relative to the file's folder.
"""

from __future__ import annotations

import functools
import json
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from game.core.errors import InputError, Problem, WorldError

KINDS = ("negotiation", "adventure", "council", "debate")
SEATS = ("autopilot", "llm")  # adventure/council seats besides script:FILE and module:function


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LLMEndpoint(_Model):
    """An OpenAI-compatible endpoint for an LLM competitor (the key comes from $OPENAI_API_KEY)."""

    endpoint: str | None = Field(None, description="base URL, e.g. http://localhost:11434/v1 (None: "
                                                   "$OPENAI_BASE_URL)")
    model: str | None = Field(None, description="model name (None: $PARLEY_MODEL, else gpt-4o-mini)")
    timeout: float | None = Field(None, gt=0, le=3600, description="seconds per request")
    max_retries: int | None = Field(None, ge=0, le=50)
    cache_dir: str | None = Field(None, description="reply cache: a re-run with the same prompts makes no requests")
    usd_per_1k_tokens: float = Field(0.0, ge=0, description="price used for the spend limit and the cost column")

    def settings(self) -> dict[str, Any]:
        """The fields given, as ``LLMConfig`` / ``LLMSettings`` name them (unset ones come from the environment)."""
        return {k: v for k, v in {"base_url": self.endpoint, "model": self.model, "timeout": self.timeout,
                                  "max_retries": self.max_retries, "cache_dir": self.cache_dir}.items()
                if v is not None}


class Competitor(_Model):
    """One contestant: an agent kind with its parameters."""

    name: str = Field(min_length=1, max_length=60, description="shown in tables; unique in the tournament")
    agent: str = Field(description="negotiation: a negotiator kind (boulware, linear, conceder, hardliner, "
                                   "tit_for_tat, aspiration, random) or llm; adventure/council: the player's "
                                   "seat: autopilot, llm, script:FILE or module:function; debate: the council "
                                   "members: scripted or llm")
    params: dict[str, Any] = Field(default_factory=dict, description="negotiation: the negotiator kind's "
                                   "parameters (e.g. exponent, opponent_model); debate: the masking mode's "
                                   "(budget, window, redundancy, ...: game.council.context.MaskingConfig)")
    masking: str | None = Field(None, description="debate: the members' masking mode (none, window, dedupe, "
                                                  "memo, objective; subjective for llm); unset: memo")
    memory: bool = Field(False, description="adventure/council: agent memory (MEMO) on, so memory can be "
                                            "ablated as a competitor option")
    embedder: Literal["minilm", "hash"] = Field("minilm", description="the memory's embedder (with memory)")
    llm: LLMEndpoint | None = Field(None, description="the endpoint an llm competitor (or its NPCs) uses")

    @field_validator("name")
    @classmethod
    def _printable(cls, v: str) -> str:
        if not v.strip() or any(not c.isprintable() for c in v):
            raise ValueError("a competitor name must be printable text")
        return v.strip()


class GeneratedScenarios(_Model):
    """Negotiation: random multi-issue scenes (``game.negotiation.generate.random_scenes``). Debate:
    hidden-profile tasks (``game.council.tasks.hidden_profile_task``) of seeds ``seed`` to
    ``seed + generate - 1``. Seeded, so reproducible."""

    generate: int = Field(ge=1, le=100_000, description="how many scenes (debate: hidden-profile tasks)")
    seed: int = Field(0, ge=0, description="the generator's seed (debate: the first task's seed)")
    deadline: int = Field(20, ge=1, le=1000, description="rounds before the talks fail")


class WorldScenario(_Model):
    """A world: its adventure, or one of its scenes (a negotiation or a council)."""

    world: str = Field(description="a world folder (relative to this file) or a world id under ./worlds")
    scene: str | None = Field(None, description="the scene's id (negotiation / council tournaments)")


class ImportedScenarios(_Model):
    """A scenario set written by ``parley import`` (Deal or No Deal, CaSiNo, GENIUS)."""

    imported: str = Field(description="the set's JSON file (relative to this file)")
    limit: int | None = Field(None, ge=1, description="use only the first N scenarios")


Scenario = GeneratedScenarios | WorldScenario | ImportedScenarios


class Limits(_Model):
    """When to stop starting matches."""

    llm_tokens: int | None = Field(None, ge=0, description="stop once the LLM competitors used this many tokens")
    cost: float | None = Field(None, ge=0, description="stop once their spend (usd_per_1k_tokens) reaches this")


class TournamentConfig(_Model):
    """A round robin: every competitor in every role (and both opening positions), on every scenario,
    for every seed and repetition."""

    name: str = Field("tournament", min_length=1, max_length=120)
    kind: Literal["negotiation", "adventure", "council", "debate"]
    competitors: list[Competitor] = Field(min_length=1)
    scenarios: list[Scenario] = Field(min_length=1)
    seeds: list[int] = Field(default_factory=lambda: [0], min_length=1, description="base seeds (each >= 0)")
    repetitions: int = Field(1, ge=1, le=10_000, description="plays of each pairing per scenario and seed")
    openers: Literal["both", "scene"] = Field("both", description="negotiation: both: each pairing also plays "
                                                                   "with the other party opening; scene: the "
                                                                   "scene's opener only")
    self_play: bool = Field(False, description="negotiation: a competitor also meets itself")
    deadline: int | None = Field(None, ge=1, le=1000, description="negotiation: override every scene's deadline")
    turns: int | None = Field(None, ge=1, description="adventure/council: stop each game after this many turns; "
                                                       "debate: the council's max_rounds (default 10, at most 200)")
    limits: Limits = Field(default_factory=Limits)

    @field_validator("seeds")
    @classmethod
    def _seeds(cls, v: list[int]) -> list[int]:
        if any(s < 0 for s in v):
            raise ValueError("seeds must be 0 or more")
        if len(set(v)) != len(v):
            raise ValueError("seeds repeat")
        return v

    @model_validator(mode="after")
    def _unique_names(self) -> TournamentConfig:
        names = [c.name for c in self.competitors]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"competitor names repeat: {', '.join(dup)}")
        return self

    def competitor(self, name: str) -> Competitor:
        return next(c for c in self.competitors if c.name == name)


def kind_problems(cfg: TournamentConfig, file: str) -> list[Problem]:
    """What does not fit the tournament's kind: each problem names its competitor or scenario."""
    if cfg.kind == "debate":
        from game.tournament.debate import config_problems
        return config_problems(cfg, file)
    out: list[Problem] = []
    neg = cfg.kind == "negotiation"
    if neg and len(cfg.competitors) < 2 and not cfg.self_play:
        out.append(Problem("a negotiation tournament needs two competitors (or self_play = true)", file=file,
                           path="competitors"))
    for n, c in enumerate(cfg.competitors):
        why = "masking is for debate competitors" if c.masking is not None else \
            _negotiator_problem(c) if neg else _seat_problem(c)
        if why:
            out.append(Problem(why, file=file, path=f"competitors[{n}]"))
    for n, s in enumerate(cfg.scenarios):
        why = None
        if neg:
            if isinstance(s, WorldScenario) and not s.scene:
                why = "a negotiation scenario from a world needs scene (a negotiation scene's id)"
        elif not isinstance(s, WorldScenario):
            why = f"{cfg.kind} scenarios are worlds (world = ...); generated and imported sets are negotiation scenes"
        elif cfg.kind == "council" and not s.scene:
            why = "a council scenario needs scene (a council scene's id)"
        elif cfg.kind == "adventure" and s.scene:
            why = "scene is for negotiation and council tournaments"
        if why:
            out.append(Problem(why, file=file, path=f"scenarios[{n}]"))
    return out


def _negotiator_problem(c: Competitor) -> str | None:
    from agents.negotiators import KINDS as NEG_KINDS
    from agents.negotiators import from_kind
    from game.core.errors import did_you_mean
    if c.agent == "llm":
        return "an llm negotiator takes no params" if c.params else None
    if c.agent not in NEG_KINDS:
        hint = did_you_mean(c.agent, [*NEG_KINDS, "llm"])
        return (f"unknown negotiator {c.agent!r}" + (f" ({hint})" if hint else "")
                + f"; kinds: {', '.join([*NEG_KINDS, 'llm'])}")
    if c.memory:
        return "memory is for adventure and council competitors"
    try:
        from_kind(c.agent, probe_utility(), **c.params)
    except (TypeError, ValueError, InputError) as e:
        return e.message if isinstance(e, InputError) else str(e)
    return None


@functools.lru_cache(maxsize=1)
def probe_utility() -> Any:
    """A utility function to build negotiators on when only their parameters matter (checking them,
    reading their defaults)."""
    from game.negotiation.generate import random_scenes
    from game.negotiation.utility import utilities_for
    return utilities_for(random_scenes(1, 0)[0])["a"]


_MODULE_SEAT = re.compile(r"^module:[A-Za-z_][\w.]*[:.][A-Za-z_]\w*$")


def _seat_problem(c: Competitor) -> str | None:
    a = c.agent
    if a in SEATS or a.startswith("script:") and len(a) > 7 or _MODULE_SEAT.match(a):
        return "params are for negotiators" if c.params else None
    return f"unknown seat {a!r}; seats: autopilot, llm, script:FILE, module:function"


# --- reading --------------------------------------------------------------------------------
def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ("GeneratedScenarios", "WorldScenario", "ImportedScenarios"):
            continue
        else:
            out += ("." if out else "") + str(part)
    return out


def _problems(err: ValidationError, file: str) -> list[Problem]:
    from game.core.errors import did_you_mean
    seen: set[tuple[str, str]] = set()
    out = []
    for e in err.errors():
        loc = tuple(e["loc"])
        kind = e["type"]
        if kind == "extra_forbidden":
            msg = f"unknown key {loc[-1]!r}"
            fields = _fields_at(loc[:-1])
            hint = did_you_mean(loc[-1], fields) if fields else None
        elif kind == "missing":
            msg, hint = f"missing required key {loc[-1]!r}", None
        else:
            msg, hint = e["msg"].removeprefix("Value error, "), None
        key = (_loc(loc), msg)
        if key in seen:
            continue
        seen.add(key)
        out.append(Problem(msg, file=file, path=_loc(loc) or None, hint=hint))
    # a scenario that fits none of the shapes gives one error per shape; say it once
    return out


def _fields_at(loc: tuple[Any, ...]) -> list[str]:
    model: Any = TournamentConfig
    for part in loc:
        if isinstance(part, int):
            continue
        if part in ("GeneratedScenarios", "WorldScenario", "ImportedScenarios"):
            model = {"GeneratedScenarios": GeneratedScenarios, "WorldScenario": WorldScenario,
                     "ImportedScenarios": ImportedScenarios}[part]
            continue
        field = getattr(model, "model_fields", {}).get(part)
        if field is None:
            return []
        ann = field.annotation
        for cand in (Competitor, Limits, LLMEndpoint):
            if ann is cand or cand in getattr(ann, "__args__", ()) or \
                    any(cand in getattr(a, "__args__", ()) for a in getattr(ann, "__args__", ())):
                model = cand
                break
        else:
            return []
    return list(getattr(model, "model_fields", {}))


def parse_config(data: Any, file: str = "tournament") -> TournamentConfig:
    """A validated config from parsed data; ``WorldError`` (an ``InputError``) lists every problem."""
    if not isinstance(data, dict):
        raise InputError(f"{file}: a tournament config is a table of keys, got {type(data).__name__}")
    try:
        cfg = TournamentConfig.model_validate(data)
    except RecursionError:
        raise InputError(f"{file}: nested too deeply to read") from None
    except ValidationError as e:
        raise WorldError(_problems(e, file), source=file) from None
    problems = kind_problems(cfg, file)
    if problems:
        raise WorldError(problems, source=file)
    return cfg


def load_config(path: str | Path) -> tuple[TournamentConfig, Path]:
    """Read a TOML (or JSON) tournament file; returns the config and the folder its paths are
    relative to."""
    from game.core.files import read_limited
    p = Path(path)
    raw, why = read_limited(p)
    if raw is None:
        msg, hint = why or ("cannot read", None)
        raise InputError(f"{p}: {msg}", hint=hint)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{p}: not UTF-8 text (byte {e.start})") from None
    try:
        data = json.loads(text) if p.suffix.lower() == ".json" else tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        where = f":{e.lineno}:{e.colno}" if getattr(e, "lineno", None) else ""
        raise InputError(f"{p}{where}: not valid TOML: {getattr(e, 'msg', e)}") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{p}:{e.lineno}:{e.colno}: not valid JSON: {e.msg}") from None
    except RecursionError:
        raise InputError(f"{p}: nested too deeply to read", hint="a tournament config is a few levels deep") from None
    return parse_config(data, str(p)), p.resolve().parent


def tournament_schema() -> dict[str, Any]:
    """The JSON Schema of a tournament file."""
    schema = TournamentConfig.model_json_schema()
    schema["title"] = "Parley tournament"
    return schema
