"""GENIUS / ANAC XML domains and preference profiles as scenarios.

A **domain** file (root ``<negotiation_template>``, or a ``<utility_space>`` with no evaluations or
weights) lists the issues::

    <negotiation_template><utility_space><objective name="Party">
      <issue index="1" name="Food" type="discrete"><item index="1" value="Catering"/>...</issue>
    ...

A **profile** (root ``<utility_space>``) gives one party's preferences over them::

    <utility_space><objective>
      <issue index="1" name="Food"><item value="Catering" evaluation="3.0"/>...</issue>
      <weight index="1" value="0.25"/>...
    </objective>
    <discount_factor value="0.9"/><reservation value="0.5"/></utility_space>

**Grouping.** Each folder under the one given (searched recursively) is read on its own. A
profile belongs to the domain whose name prefix (the file name without ``.xml``, a trailing
``domain`` and separators: ``party_domain.xml`` -> ``party``, ``WindFarm.xml`` -> ``WindFarm``)
begins the profile's file name, the longest such prefix winning; when a folder has a single domain,
every profile in it belongs to it. Each pair of a domain's profiles (in file-name order) becomes a
scenario, the first profile being party ``a``.

**Normalisation.** Weights are used as given (``utilities_for`` divides by their sum). Each issue's
evaluations are divided by that issue's largest evaluation, so its best value has utility 1 (an
issue evaluated all 0 stays 0). The reservation value is kept (0 when absent). Discount factors are
**ignored**: Parley's deadline is in rounds, and scenes have no discounting. Only discrete issues
are supported. Issue names become lower_snake ids (``Number of Wind Turbines`` ->
``number_of_wind_turbines``); value names are kept as written.

**Leniency** for hand-written files that GENIUS itself reads: a bare ``&`` in a value is read as
``&amp;``; an XML declaration after a leading comment is dropped; a ``<weight>`` whose index is
the objective's own is ignored; the oldest files' issues straight under ``<utility_space>`` (no
``<objective>``) are read too.

XML is parsed with ``defusedxml`` when it is installed, else ``xml.etree.ElementTree`` after
refusing any document type declaration (no entities, so no entity expansion). GENIUS files carry
no human outcomes: ``human`` is null. Ids are ``genius-<domain>-<profile a>-<profile b>``.
"""

from __future__ import annotations

import math
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from game.core.errors import InputError
from game.core.text import shown
from game.tournament.scenario_set import DEFAULT_DEADLINE, ImportedScenario, ScenarioSet, as_id, slug

MAX_XML_BYTES = 50 * 1024 * 1024
MAX_FILES = 5000
"""The most .xml files read from one folder tree."""
NOTES = (
    "GENIUS domains and profiles. Each pair of a domain's profiles is a scenario (a = the first "
    "by file name). Evaluations are divided by each issue's largest; weights as given "
    "(normalised to sum 1); reservation values kept; discount factors ignored."
)
HINT = "give a folder holding a GENIUS domain .xml and its profile .xml files"


_BARE_AMP = re.compile(rb"&(?!(?:[A-Za-z][A-Za-z0-9]{0,30}|#[0-9]{1,8}|#x[0-9A-Fa-f]{1,8});)")
_DECL = re.compile(rb"<\?xml[^>]{0,200}\?>")


class _Bad(Exception):
    """A malformed file: the message says what is wrong (the caller adds the file)."""


@dataclass
class Domain:
    path: Path
    name: str
    issues: dict[str, list[str]]  # raw issue name -> raw value names, in file order
    profiles: list[Profile] = field(default_factory=list)

    @property
    def prefix(self) -> str:
        stem = self.path.stem
        if stem.lower().endswith("domain"):
            stem = stem[: -len("domain")]
        return stem.rstrip("-_. ")


@dataclass
class Profile:
    path: Path
    evaluations: dict[str, dict[str, float]]  # raw issue -> raw value -> evaluation
    weights: dict[str, float]
    reservation: float
    discount: float | None


def _parse_xml(raw: bytes) -> ET.Element:
    try:
        import defusedxml.ElementTree as DET  # type: ignore[import-not-found]
    except ImportError:
        DET = None
    if b"\x00" in raw or raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise _Bad("is not ASCII-compatible text (UTF-16 and UTF-32 files are not read)")
    head = raw.lower()
    if b"<!doctype" in head or b"<!entity" in head:
        raise _Bad("has a document type declaration (<!DOCTYPE>/<!ENTITY>), which is refused")
    # leniency for hand-written GENIUS files: a bare "&" in a value ("Coffee & Thee"), and an
    # XML declaration after a leading comment
    raw = _BARE_AMP.sub(b"&amp;", raw)
    decl = _DECL.search(raw)
    if decl is not None and raw[: decl.start()].strip(b" \t\r\n\xef\xbb\xbf"):
        raw = raw[: decl.start()] + raw[decl.end() :]
    try:
        if DET is not None:
            return DET.fromstring(raw, forbid_dtd=True)
        return ET.fromstring(raw)
    except ET.ParseError as e:
        line, col = getattr(e, "position", (None, None))
        pos = f"line {line}, column {col + 1}: " if line is not None else ""
        raise _Bad(f"{pos}not well-formed XML ({shown(str(e).split(':')[0][:80])})") from None
    except (ValueError, LookupError, RecursionError) as e:  # odd encodings, defusedxml refusals
        raise _Bad(f"not usable XML: {shown(str(e)[:120])}") from None
    except Exception as e:  # defusedxml's own errors (DTDForbidden, EntitiesForbidden, ...)
        if DET is not None and type(e).__module__.startswith("defusedxml"):
            raise _Bad(f"refused: {type(e).__name__}") from None
        raise


def _objective(root: ET.Element) -> ET.Element:
    space = root if root.tag == "utility_space" else root.find("utility_space")
    if space is None:
        raise _Bad(f"<{shown(root.tag[:40])}> has no <utility_space>")
    obj = space.find("objective")
    if obj is None:  # the oldest files list the issues straight under <utility_space>
        if space.find("issue") is None:
            raise _Bad("<utility_space> has no <objective> and no <issue>")
        return space
    if obj.find("objective") is not None:
        raise _Bad("nested objectives are not supported")
    return obj


def _issue_name(el: ET.Element, k: int) -> str:
    name = (el.get("name") or "").strip()
    if not name:
        raise _Bad(f"issue {k} has no name")
    kind = (el.get("type") or el.get("etype") or "discrete").strip().lower()
    if kind != "discrete":
        raise _Bad(f"issue {shown(name[:60])!r} is of type {shown(kind[:20])!r}; only discrete issues are supported")
    return name


def _number(text: str | None, what: str) -> float:
    try:
        x = float((text or "").strip())
    except ValueError:
        raise _Bad(f"{what}: {shown(repr(text)[:40])} is not a number") from None
    if not math.isfinite(x):
        raise _Bad(f"{what}: {x!r} is not a finite number")
    return x


def _read_domain(obj: ET.Element) -> tuple[str, dict[str, list[str]]]:
    issues: dict[str, list[str]] = {}
    for k, el in enumerate(obj.findall("issue"), start=1):
        name = _issue_name(el, k)
        if name in issues:
            raise _Bad(f"issue {shown(name[:60])!r} appears twice")
        values = []
        for j, item in enumerate(el.findall("item"), start=1):
            v = (item.get("value") or "").strip()
            if not v:
                raise _Bad(f"issue {shown(name[:60])!r}: item {j} has no value")
            if v in values:
                raise _Bad(f"issue {shown(name[:60])!r}: value {shown(v[:60])!r} appears twice")
            values.append(v)
        if not values:
            raise _Bad(f"issue {shown(name[:60])!r} has no items")
        issues[name] = values
    if not issues:
        raise _Bad("the domain has no issues")
    return (obj.get("name") or "").strip(), issues


def _read_profile(root: ET.Element, obj: ET.Element, path: Path) -> Profile:
    evaluations: dict[str, dict[str, float]] = {}
    index: dict[str, str] = {}
    for k, el in enumerate(obj.findall("issue"), start=1):
        name = _issue_name(el, k)
        if name in evaluations:
            raise _Bad(f"issue {shown(name[:60])!r} appears twice")
        idx = (el.get("index") or "").strip()
        if idx:
            index[idx] = name
        table: dict[str, float] = {}
        for j, item in enumerate(el.findall("item"), start=1):
            v = (item.get("value") or "").strip()
            if not v:
                raise _Bad(f"issue {shown(name[:60])!r}: item {j} has no value")
            if item.get("evaluation") is None:
                raise _Bad(f"issue {shown(name[:60])!r}, value {shown(v[:60])!r}: no evaluation")
            x = _number(item.get("evaluation"), f"issue {shown(name[:60])!r}, value {shown(v[:60])!r}: evaluation")
            if x < 0:
                raise _Bad(f"issue {shown(name[:60])!r}, value {shown(v[:60])!r}: evaluation {x!r} is negative")
            table[v] = x
        evaluations[name] = table
    weights: dict[str, float] = {}
    own = (obj.get("index") or "").strip() if obj.tag == "objective" else None
    for el in obj.findall("weight"):
        idx = (el.get("index") or "").strip()
        if idx == own and idx not in index:
            continue  # the objective's own weight
        if idx not in index:
            raise _Bad(f"<weight index={shown(idx[:20])!r}> names no issue")
        w = _number(el.get("value"), f"weight of issue {shown(index[idx][:60])!r}")
        if w < 0:
            raise _Bad(f"weight of issue {shown(index[idx][:60])!r} is negative ({w!r})")
        weights[index[idx]] = w
    space = root if root.tag == "utility_space" else root.find("utility_space")
    reservation = 0.0
    res = space.find("reservation") if space is not None else None
    if res is not None:
        reservation = _number(res.get("value"), "<reservation> value")
        if not 0.0 <= reservation <= 1.0:
            raise _Bad(f"<reservation> value {reservation!r} is not in [0, 1]")
    disc = space.find("discount_factor") if space is not None else None
    discount = _number(disc.get("value"), "<discount_factor> value") if disc is not None else None
    return Profile(path, evaluations, weights, reservation, discount)


def _is_profile(root: ET.Element, obj: ET.Element) -> bool:
    if root.tag != "utility_space":
        return False
    return obj.find("weight") is not None or any(it.get("evaluation") is not None for it in obj.iter("item"))


def _check_profile(domain: Domain, prof: Profile) -> None:
    for issue, values in domain.issues.items():
        if issue not in prof.evaluations:
            raise _Bad(f"no evaluations for issue {shown(issue[:60])!r} of domain {shown(domain.path.name)}")
        table = prof.evaluations[issue]
        for v in values:
            if v not in table:
                raise _Bad(f"issue {shown(issue[:60])!r}: no evaluation for value {shown(v[:60])!r}")
        extra = [v for v in table if v not in values]
        if extra:
            raise _Bad(
                f"issue {shown(issue[:60])!r}: value {shown(extra[0][:60])!r} is not in domain "
                f"{shown(domain.path.name)}"
            )
        if issue not in prof.weights:
            raise _Bad(f"no <weight> for issue {shown(issue[:60])!r}")
    extra_issues = [i for i in prof.evaluations if i not in domain.issues]
    if extra_issues:
        raise _Bad(f"issue {shown(extra_issues[0][:60])!r} is not in domain {shown(domain.path.name)}")
    if sum(prof.weights[i] for i in domain.issues) <= 0:
        raise _Bad("the weights sum to 0")


def _xml_files(folder: Path) -> dict[Path, list[Path]]:
    """folder -> its .xml files, every folder under ``folder``, sorted; symlinked folders not followed."""
    out: dict[Path, list[Path]] = {}
    total = 0
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        files = sorted(f for f in filenames if f.lower().endswith(".xml"))
        if files:
            total += len(files)
            if total > MAX_FILES:
                raise InputError(f"{shown(str(folder))}: more than {MAX_FILES} .xml files", hint=HINT)
            out[Path(dirpath)] = [Path(dirpath) / f for f in files]
    return out


def _read_folder(files: list[Path], bad: Callable[[str], None]) -> tuple[list[Domain], list[Profile]]:
    """One folder's domains and profiles, in file order; a file that cannot be read or is malformed
    goes to ``bad``, one that is neither a domain nor a profile is passed over."""
    from game.core.files import read_limited
    from game.negotiation.utility import MAX_OUTCOMES

    local: list[Domain] = []
    profiles: list[Profile] = []
    for f in files:
        fname = shown(str(f))
        raw, problem = read_limited(f, limit=MAX_XML_BYTES)
        if raw is None:
            bad(f"{fname}: {problem[0]}")  # type: ignore[index]
            continue
        try:
            root = _parse_xml(raw)
            if root.tag not in ("negotiation_template", "utility_space"):
                continue  # not a domain or a profile
            obj = _objective(root)
            if _is_profile(root, obj):
                profiles.append(_read_profile(root, obj, f))
            else:
                name, issues = _read_domain(obj)
                size = math.prod(len(v) for v in issues.values())
                if size > MAX_OUTCOMES:
                    raise _Bad(f"{size} outcomes; the limit is {MAX_OUTCOMES}")
                local.append(Domain(f, name or f.stem, issues))
        except _Bad as e:
            bad(f"{fname}: {e}")
    return local, profiles


def _attach_profiles(local: list[Domain], profiles: list[Profile], bad: Callable[[str], None]) -> None:
    """Give each profile to the folder's domain whose file name begins its name (the longest such;
    the only domain when none does), if it fits that domain; the rest go to ``bad``."""
    for prof in profiles:
        owners = [d for d in local if prof.path.stem.lower().startswith(d.prefix.lower())]
        if not owners and len(local) == 1:
            owners = local
        if not owners:
            bad(
                f"{shown(str(prof.path))}: belongs to no domain (no domain file's name begins its name)"
                if local
                else f"{shown(str(prof.path))}: no domain file in its folder"
            )
            continue
        dom = max(owners, key=lambda d: len(d.prefix))
        try:
            _check_profile(dom, prof)
        except _Bad as e:
            bad(f"{shown(str(prof.path))}: {e}")
            continue
        dom.profiles.append(prof)


def _pair_scenarios(domains: list[Domain], folder: Path, deadline: int, skipped: list[str]) -> list[ImportedScenario]:
    """A scenario for every two profiles of each domain; a domain with fewer is listed in ``skipped``."""
    scenarios: list[ImportedScenario] = []
    ids: set[str] = set()
    for dom in domains:
        if len(dom.profiles) < 2:
            skipped.append(
                f"{shown(str(dom.path))}: {len(dom.profiles)} profile"
                f"{'s' if len(dom.profiles) != 1 else ''}; a scenario needs two"
            )
            continue
        for i, pa in enumerate(dom.profiles):
            for pb in dom.profiles[i + 1 :]:
                s = _scenario(dom, pa, pb, folder, deadline, ids)
                ids.add(s.id)
                scenarios.append(s)
    return scenarios


def import_genius(folder: str | Path, *, skip_bad: bool = False, deadline: int = DEFAULT_DEADLINE) -> ScenarioSet:
    """Read GENIUS domains and profiles under ``folder`` into a ``ScenarioSet`` (see the module
    docstring). A malformed file raises ``InputError`` naming the file and what is wrong in it
    (issue, value, line for bad XML); with ``skip_bad`` it is left out and listed in ``skipped``.
    XML files that are neither domains nor profiles (logs, repositories) are ignored."""
    from game.core.files import path_problem

    folder = Path(folder)
    where = shown(str(folder))
    why = path_problem(folder, want="folder")
    if why is not None:
        msg = "no such folder" if why[0] == "missing" else why[0]
        raise InputError(f"{where}: {msg}", hint=HINT)
    skipped: list[str] = []

    def bad(msg: str) -> None:
        if not skip_bad:
            raise InputError(msg, hint=HINT)
        skipped.append(msg)

    domains: list[Domain] = []
    for files in _xml_files(folder).values():
        local, profiles = _read_folder(files, bad)
        _attach_profiles(local, profiles, bad)
        domains += local
    scenarios = _pair_scenarios(domains, folder, deadline, skipped)
    if not scenarios:
        raise InputError(
            f"{where}: no scenarios: found {len(domains)} domain"
            f"{'s' if len(domains) != 1 else ''} and "
            f"{sum(len(d.profiles) for d in domains)} matching profiles"
            + (f"; {len(skipped)} problems: {skipped[0]}" if skipped else ""),
            hint=HINT,
        )
    return ScenarioSet(
        source="genius", origin=folder.name or str(folder), notes=NOTES, skipped=skipped, scenarios=scenarios
    )


def _label(prof: Profile, dom: Domain) -> str:
    stem = prof.path.stem
    if dom.prefix and stem.lower().startswith(dom.prefix.lower()):
        stem = stem[len(dom.prefix) :]
    return slug(stem.strip("-_. ") or prof.path.stem)


def _scenario(dom: Domain, pa: Profile, pb: Profile, folder: Path, deadline: int, ids: set[str]) -> ImportedScenario:
    names: dict[str, str] = {}
    for raw in dom.issues:
        names[raw] = as_id(raw, names.values())
    issues = {names[raw]: list(values) for raw, values in dom.issues.items()}
    parties = []
    for pid, prof in (("a", pa), ("b", pb)):
        values = {}
        for raw, vals in dom.issues.items():
            table = prof.evaluations[raw]
            top = max(table[v] for v in vals)
            values[names[raw]] = {v: (table[v] / top if top > 0 else 0.0) for v in vals}
        parties.append(
            {
                "id": pid,
                "weights": {names[raw]: prof.weights[raw] for raw in dom.issues},
                "values": values,
                "reservation": prof.reservation,
            }
        )

    def rel(p: Path) -> str:
        try:
            return str(p.relative_to(folder))
        except ValueError:
            return str(p)

    from game.negotiation.spec import NegotiationScene

    discounts = [p.discount for p in (pa, pb) if p.discount is not None and p.discount != 1.0]
    desc = f"GENIUS domain {dom.name} ({rel(dom.path)}): a = {rel(pa.path)}, b = {rel(pb.path)}." + (
        " Discount factors ignored." if discounts else ""
    )
    scene = NegotiationScene.model_validate(
        {
            "type": "negotiation",
            "title": f"{dom.name}: {_label(pa, dom)} vs {_label(pb, dom)}",
            "description": desc,
            "issues": issues,
            "parties": parties,
            "deadline": deadline,
            "first": "a",
        }
    )
    base = f"genius-{slug(dom.prefix or dom.path.stem)}-{_label(pa, dom)}-{_label(pb, dom)}"[:190]
    sid, n = base, 2
    while sid in ids:
        sid, n = f"{base}-{n}", n + 1
    return ImportedScenario(
        id=sid, origin=f"{rel(dom.path)} + {rel(pa.path)} + {rel(pb.path)}", scene=scene, human=None
    )
