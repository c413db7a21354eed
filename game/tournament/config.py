"""Reading a tournament config from TOML (``parley tournament CONFIG.toml``) into the pydantic
models of ``game.tournament.model``.

A tournament has a ``kind`` (negotiation, adventure, council, debate: ``game.tournament.kinds``),
``competitors`` (agents with their parameters), ``scenarios`` (world scenes, generated sets,
imported sets), seeds and repetitions; its kind says which competitors and scenarios fit (a
``debate`` tournament's competitors are council debate configurations, its scenarios debate tasks).
``game.tournament.matches`` expands it into matches. Errors name the file, the field and what is
wrong (exit code 2 at the CLI); ``tournament_schema()`` is the JSON Schema editors can use.
Paths in the file (worlds, imported sets, scripts) are relative to the file's folder.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from game.core.errors import InputError, Problem, WorldError
from game.tournament.kinds import KINDS, kind_for
from game.tournament.model import (
    Competitor,
    GeneratedScenarios,
    ImportedScenarios,
    Limits,
    LLMEndpoint,
    Scenario,
    TournamentConfig,
    WorldScenario,
)

__all__ = [
    "Competitor",
    "GeneratedScenarios",
    "ImportedScenarios",
    "LLMEndpoint",
    "Limits",
    "Scenario",
    "TournamentConfig",
    "WorldScenario",
    "kind_problems",
    "load_config",
    "parse_config",
    "tournament_schema",
]


def kind_problems(cfg: TournamentConfig, file: str) -> list[Problem]:
    """What does not fit the tournament's kind (``TournamentKind.config_problems``): each problem
    names its competitor or scenario."""
    return kind_for(cfg.kind).config_problems(cfg, file)


def _unknown_kind(data: dict[str, Any], file: str) -> list[Problem]:
    """A problem when the config names a kind nobody registered."""
    try:
        if "kind" in data:
            kind_for(data["kind"])
    except InputError as e:
        return [Problem(e.message, file=file, path="kind", hint=e.hint)]
    return []


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
            model = {
                "GeneratedScenarios": GeneratedScenarios,
                "WorldScenario": WorldScenario,
                "ImportedScenarios": ImportedScenarios,
            }[part]
            continue
        field = getattr(model, "model_fields", {}).get(part)
        if field is None:
            return []
        ann = field.annotation
        for cand in (Competitor, Limits, LLMEndpoint):
            if (
                ann is cand
                or cand in getattr(ann, "__args__", ())
                or any(cand in getattr(a, "__args__", ()) for a in getattr(ann, "__args__", ()))
            ):
                model = cand
                break
        else:
            return []
    return list(getattr(model, "model_fields", {}))


def parse_config(data: Any, file: str = "tournament") -> TournamentConfig:
    """A validated config from parsed data; ``WorldError`` (an ``InputError``) lists every problem."""
    if not isinstance(data, dict):
        raise InputError(f"{file}: a tournament config is a table of keys, got {type(data).__name__}")
    unknown = _unknown_kind(data, file)
    try:
        cfg = TournamentConfig.model_validate(data)
    except RecursionError:
        raise InputError(f"{file}: nested too deeply to read") from None
    except ValidationError as e:
        said = {"kind"} if unknown else set()  # pydantic's "not a string" says less
        raise WorldError(unknown + [p for p in _problems(e, file) if p.path not in said], source=file) from None
    problems = unknown or kind_problems(cfg, file)
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
    schema["properties"]["kind"]["enum"] = list(KINDS)
    llm = schema["$defs"]["Competitor"]["properties"]["llm"]
    llm["anyOf"].insert(
        1, {"type": "string", "description": "short for {endpoint = ...}: local, local:PATH.gguf or a URL"}
    )
    return schema
