"""`parley lexicon WORLD`: what the consistency gate's lexicon holds for a world, and what its claim
extractor reads from a sentence (``--read``), so an author can see the wording the gate knows and
extend it. Plain text, or ``--json`` for tools."""

from __future__ import annotations

import json
import sys
from argparse import Namespace
from typing import Any


def lexicon_report(lex: Any, reads: list[str]) -> dict[str, Any]:
    """Everything the command shows, as plain data: entities, shared names, relations, topics, reads."""
    from memory.extract import RuleExtractor

    relations = {}
    for rid, info in lex.relations.items():
        numeric = info.range is not None or bool(info.unit)
        relations[rid] = {
            "synonyms": list(info.aliases),
            "unit": info.unit,
            "kind": getattr(info, "values", None) or ("number" if numeric else "entity"),
            "range": list(info.range) if info.range is not None else None,
            "functional": info.functional,
            "changes": info.changes,
            "half_life": info.half_life if info.changes else None,
            "temporal": info.temporal,
            "thresholds": list(info.thresholds) if info.thresholds is not None else None,
        }
    shared = lex.shared_names()
    entities = {  # the names that name the entity (a shared one names neither)
        eid: {"names": [n for n in names if lex.entity(n) == eid]} for eid, names in sorted(lex.entities.items())
    }
    topics = [{"subject": s, "relation": r, "topic": t} for (s, r), t in sorted(lex.topics.items())]
    units = {
        uid: {
            "aliases": list(_field(u, "aliases", ())),
            "base": _field(u, "base", None),
            "factor": float(_field(u, "factor", 1.0)),
        }
        for uid, u in dict(getattr(lex, "units", {}) or {}).items()
    }
    out: dict[str, Any] = {
        "entities": entities,
        "shared_names": shared,
        "relations": relations,
        "units": units,
        "clock": dict(getattr(lex, "clock", {}) or {}),
        "topics": topics,
    }
    if reads:
        ex = RuleExtractor(lex)
        out["read"] = [
            {
                "text": text,
                "claims": [
                    {
                        "subject": c.subject,
                        "relation": c.relation,
                        "object": c.object,
                        "negated": not c.truth,
                        "topic": c.topic,
                        "span": c.span,
                    }
                    for c in ex.extract(text)
                ],
            }
            for text in reads
        ]
    return out


def _field(obj: Any, name: str, default: Any) -> Any:
    return obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)


def _columns(rows: list[list[str]], header: list[str]) -> list[str]:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  " + "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def render(world_id: str, folder: str, rep: dict[str, Any]) -> str:
    ents, rels = rep["entities"], rep["relations"]
    out = [
        f"{world_id} ({folder}): {len(ents)} entities, {len(rels)} relations, "
        f"{len({t['topic'] for t in rep['topics']})} topics",
        "",
        "Entities (an id always names itself)",
    ]
    out += _columns([[eid, ", ".join(e["names"]) or "-"] for eid, e in ents.items()], ["id", "names and aliases"])
    if rep["shared_names"]:
        out += ["", "Names dropped: two entities share them, so they name neither"]
        out += _columns([[n, ", ".join(ids)] for n, ids in sorted(rep["shared_names"].items())], ["name", "entities"])
    out += ["", "Relations"]
    rows = []
    for rid, r in rels.items():
        kind = r["kind"] + (f" {r['range'][0]:g}-{r['range'][1]:g}" if r["range"] else "")
        changes = f"yes, half-life {r['half_life']:g} turns" if r["changes"] else "no"
        rows.append(
            [
                rid,
                ", ".join(r["synonyms"]) or "-",
                r["unit"] or "-",
                kind,
                "yes" if r["functional"] else "no",
                changes,
                r["temporal"] or "-",
            ]
        )
    out += _columns(rows, ["id", "synonyms", "unit", "kind", "functional", "changes", "order"])
    if rep["units"]:
        out += ["", "Units (a number in one converts to its base)"]
        rows = [
            [uid, ", ".join(u["aliases"]) or "-", f"{u['factor']:g} {u['base']}" if u["base"] else "-"]
            for uid, u in rep["units"].items()
        ]
        out += _columns(rows, ["id", "aliases", "worth"])
    if rep["clock"]:
        out += ["", "Clock (named times of day)"]
        out += _columns([[n, t] for n, t in rep["clock"].items()], ["name", "time"])
    out += ["", "Topics (what a claim about a subject and relation is filed under; trust is kept per topic)"]
    out += _columns(
        [[t["subject"], t["relation"], t["topic"]] for t in rep["topics"]], ["subject", "relation", "topic"]
    )
    for item in rep.get("read", []):
        out += ["", f"Read: {item['text']!r}"]
        if not item["claims"]:
            out.append("  nothing: no entity with a relation the world knows, or the clause asserts nothing")
            continue
        rows = [
            [c["subject"], c["relation"], c["object"], "yes" if c["negated"] else "no", c["topic"] or "-", c["span"]]
            for c in item["claims"]
        ]
        out += _columns(rows, ["subject", "relation", "object", "negated", "topic", "from"])
    return "\n".join(out) + "\n"


def cmd_lexicon(args: Namespace) -> int:
    from game.core.text import shown
    from game.play.worlds import load_world
    from memory.lexicon import Lexicon

    world = load_world(args.world)  # a bad world raises WorldError (exit 2) with every problem
    rep = lexicon_report(Lexicon.from_spec(world.spec), list(args.read or []))
    if args.json:
        json.dump({"world": world.spec.id, "folder": str(world.folder), **rep}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render(world.spec.id, shown(world.folder), rep))
    return 0
