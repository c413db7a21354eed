"""Importers: public negotiation datasets -> Parley scenario sets.

* ``import_dond(path)``: Deal or No Deal (Lewis et al. 2017), ``src/data/negotiate/*.txt``
  (``game.tournament.import_dond``);
* ``import_casino(path)``: CaSiNo (Chawla et al. 2021), ``casino.json``
  (``game.tournament.import_casino``);
* ``import_genius(folder)``: GENIUS / ANAC XML domains and profiles
  (``game.tournament.import_genius``).

Each returns a ``ScenarioSet`` (``game.tournament.scenario_set``: the file format, ``save_set``,
``load_set``, ``human_summary``). ``run_import`` is the ``parley import FORMAT SRC [--out F]``
command's body. No dataset ships with Parley: download one and point the importer at it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from game.core.errors import InputError, did_you_mean
from game.core.text import shown
from game.tournament.import_casino import import_casino
from game.tournament.import_dond import import_dond
from game.tournament.import_genius import import_genius
from game.tournament.scenario_set import HumanOutcome, ImportedScenario, ScenarioSet, human_summary, load_set, save_set

__all__ = [
    "FORMATS",
    "HumanOutcome",
    "ImportedScenario",
    "ScenarioSet",
    "default_out",
    "human_summary",
    "import_casino",
    "import_dond",
    "import_genius",
    "import_set",
    "load_set",
    "run_import",
    "save_set",
    "summary_text",
]

FORMATS: dict[str, tuple[str, Callable[..., ScenarioSet]]] = {
    "dond": ("Deal or No Deal", import_dond),
    "casino": ("CaSiNo", import_casino),
    "genius": ("GENIUS", import_genius),
}


def _format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise InputError(
            f"unknown dataset format {shown(fmt)!r}; the formats are {', '.join(FORMATS)}",
            hint=did_you_mean(fmt, FORMATS),
        )
    return fmt


def import_set(fmt: str, src: str | Path, *, skip_bad: bool = False) -> ScenarioSet:
    """Import ``src`` with the importer for ``fmt`` ("dond", "casino" or "genius")."""
    return FORMATS[_format(fmt)][1](src, skip_bad=skip_bad)


def default_out(fmt: str, src: str | Path) -> Path:
    """Where ``run_import`` writes without ``--out``: ``<fmt>-<name of src>.json`` in the current
    folder (``dond-train.json``, ``casino-casino.json``, ``genius-partydomain.json``)."""
    p = Path(src)
    stem = p.stem if p.suffix else p.name
    return Path(f"{_format(fmt)}-{stem or 'set'}.json")


def summary_text(scenario_set: ScenarioSet, src: str | Path, out: str | Path) -> str:
    """One paragraph: how many scenarios, their issues, the human outcomes and how people did."""
    n = len(scenario_set.scenarios)
    label = FORMATS[scenario_set.source][0]
    counts = sorted({len(s.scene.issues) for s in scenario_set.scenarios})
    if len(counts) == 1:
        issues = f"{counts[0]} issue{'s' if counts[0] != 1 else ''} each"
        names = {tuple(s.scene.issues) for s in scenario_set.scenarios}
        if len(names) == 1:
            issues += f" ({', '.join(next(iter(names)))})"
    else:
        issues = f"{counts[0]}-{counts[-1]} issues each"
    h = human_summary(scenario_set)
    text = (
        f"Imported {n} scenario{'s' if n != 1 else ''} from {shown(str(src))} ({label}) into "
        f"{shown(str(out))}: {issues}; {h['with_human']} with a human outcome"
    )
    if h["with_human"]:
        text += (
            f", of which the people agreed in {h['agreements']} ({h['agreement_rate']:.1%}); "
            f"mean joint utility {h['mean_joint_utility']:.3f} (no deal = 0)"
        )
        if h["pareto_optimal_share"] is not None:
            text += f", {h['pareto_optimal_share']:.1%} of agreements Pareto-optimal"
    text += "."
    if scenario_set.skipped:
        k = len(scenario_set.skipped)
        text += f" {k} malformed record{'s' if k != 1 else ''} or file{'s' if k != 1 else ''} skipped."
    return text


def run_import(fmt: str, src: str, out: str | None = None, *, skip_bad: bool = False) -> tuple[Path, str]:
    """``parley import FORMAT SRC [--out F]``: import ``src``, write the set to ``out`` (default
    ``default_out``) and return (the path written, a one-paragraph summary). Never overwrites
    ``src``. Bad input raises ``InputError`` (exit code 2)."""
    _format(fmt)
    path = Path(out) if out is not None else default_out(fmt, src)
    try:
        same = path.exists() and Path(src).exists() and path.resolve() == Path(src).resolve()
    except OSError:
        same = False
    if same:
        raise InputError(f"--out {shown(str(path))} is the file being imported", hint="give another --out")
    scenario_set = import_set(fmt, src, skip_bad=skip_bad)
    save_set(path, scenario_set)
    return path, summary_text(scenario_set, src, path)
