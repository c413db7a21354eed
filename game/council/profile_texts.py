"""The wording of the hidden-profile generator (``game.council.hidden_profile``), read from
``profile_texts.toml`` next to this module: four settings, each with its pools of options,
council roles, sources, places, contexts and motions, its asides (irrelevant remarks) and its
cues (the attributes an item can speak to, worded for and against an option). The data file
describes the fields and placeholders.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from game.core.files import read_text

PATH = Path(__file__).with_suffix(".toml")


@dataclass(frozen=True)
class Cue:
    gist: tuple[str, str]  # short forms (for summaries) of an item for the option and of one against it
    pro: tuple[str, ...]
    con: tuple[str, ...]


@dataclass(frozen=True)
class Setting:
    name: str
    options: tuple[str, ...]
    roles: tuple[str, ...]
    sources: tuple[str, ...]
    places: tuple[str, ...]
    contexts: tuple[str, ...]
    motions: tuple[str, ...]
    cues: dict[str, Cue] = field(default_factory=dict)
    asides: tuple[str, ...] = ()


def _setting(name: str, table: dict[str, Any]) -> Setting:
    pools = {k: tuple(v) for k, v in table.items() if k != "cues"}
    cues = {c: Cue(tuple(v["gist"]), tuple(v["pro"]), tuple(v["con"])) for c, v in table["cues"].items()}
    return Setting(name=name, cues=cues, **pools)


def load(path: Path = PATH) -> tuple[tuple[str, ...], dict[str, Setting]]:
    """(the frames, the settings by name) from ``path``."""
    data = tomllib.loads(read_text(path))
    frames = tuple(data.pop("frames"))
    return frames, {name: _setting(name, table) for name, table in data.items()}


FRAMES, SETTINGS = load()
