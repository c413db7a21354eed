"""`parley saves`, `parley replay`, `parley trust` and `parley inspect`: what was saved and learnt."""

from __future__ import annotations

import json
import sys
from argparse import Namespace

from game.core.errors import InputError


def cmd_saves(args: Namespace) -> int:
    import time

    from game.core.text import shown
    from game.play.save_files import list_saves, remove, resolve

    base = args.saves_dir
    if args.saves_cmd == "list":
        rows = list_saves(base)
        if not rows:
            print("no saves")
            return 0
        print_table(
            ("Name", "World", "Status", "Score", "Saved"),
            [
                (
                    shown(r.slug),
                    shown(r.world_id),
                    "won" if r.done else f"turn {r.turn}",
                    shown(r.score),
                    time.strftime("%Y-%m-%d %H:%M", time.localtime(r.modified)),
                )
                for r in rows
            ],
        )
        return 0
    if args.saves_cmd == "show":
        from game.play.persistence import checked_save

        folder = resolve(args.name, base)
        data = checked_save(folder)[0]
        st = data["engine"]["state"]  # checked as every command that opens a save checks it
        w = data["world"]
        print(shown(f"save     {folder}\nworld    {w['id']} ({w['path']}, hash {w['hash']})"))
        print(f"seed     {data['seed']}\nturn     {data['turn']}\nscore    {shown(st['score'])}")
        print(
            f"quests   {shown(', '.join(map(str, st['quests_done'])) or 'none')}\nstate    {shown(data['state_hash'])}"
        )
        print(f"player   at {shown(st['where'].get('player'))} with {shown(st['gold'].get('player'))} gold")
        return 0
    server = saved_collection(args.name, base)
    folder = remove(args.name, base)
    print(f"removed {shown(folder)}")
    if server is not None:
        said = drop_collection(server, base)
        print(said, file=sys.stderr if said.startswith("warning") else sys.stdout)
    return 0


def print_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    """Rows in columns that fit the terminal: a long cell wraps within its column (names people
    type are never cut). Without rich (the light install): one tab-separated line per row."""
    try:
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text
    except ImportError:
        for row in (header, *rows):
            print("\t".join(row))
        return
    table = Table(box=None, pad_edge=False, padding=(0, 1), header_style="bold", show_edge=False)
    for i, name in enumerate(header):
        table.add_column(name, overflow="fold", min_width=8 if i < 2 else None)
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    console = Console(highlight=False)
    with console.capture() as out:
        console.print(table)
    print("\n".join(line.rstrip() for line in out.get().splitlines()))


def saved_collection(name: str, base) -> dict | None:
    """The Chroma server collection a save's memory lives in (host, port, collection), or None."""
    from game.core.errors import ParleyError
    from game.play.save_files import read_save, resolve

    try:
        mem = read_save(resolve(name, base, inside=True))["components"].get("memory") or {}
        server = mem.get("store_options") or {}
        return {k: server[k] for k in ("host", "port", "collection")} if server.get("collection") else None
    except (ParleyError, OSError, KeyError, TypeError, AttributeError):
        return None  # no such save, or a damaged one: ``remove`` says what is wrong, or removes it


def drop_collection(server: dict, base) -> str:
    """Drop a removed save's collection from its Chroma server, unless another save still uses it
    (an autosave and a named save of one game share it); the line that says what happened."""
    from game.core.text import shown
    from game.play.save_files import list_saves

    name, where = server["collection"], f"{server['host']}:{server['port']}"
    others = [i.slug for i in list_saves(base) if saved_collection(i.slug, base) == server]
    if others:
        return shown(f"kept Chroma collection {name} on {where}: save {', '.join(others)} still uses it")
    try:
        import chromadb
        from chromadb.config import Settings

        client = chromadb.HttpClient(
            host=server["host"], port=int(server["port"]), settings=Settings(anonymized_telemetry=False)
        )
        if name not in {c.name for c in client.list_collections()}:
            return shown(f"Chroma collection {name} was already gone from {where}")
        client.delete_collection(name)
    except Exception as e:  # the server is down or refuses: the save is gone, say what is left behind
        return shown(
            f"warning: could not drop Chroma collection {name} on {where} ({type(e).__name__}: "
            f"{str(e)[:200]}); delete it later with a Chroma client: client.delete_collection({name!r})"
        )
    return shown(f"dropped Chroma collection {name} from {where}")


def cmd_replay(args: Namespace) -> int:
    if args.tui:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise InputError("--tui needs a terminal", hint="leave --tui out to replay and check the save here")
        from game.tui.screens.watch import run_replay

        return run_replay(args.save, args.saves_dir, args.speed)
    from game.play.persistence import replay_report

    report = replay_report(args.save, base=args.saves_dir)
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    got, want = report.engine()
    if report.ok:
        print(f"replay ok: state {got} matches the save ({', '.join(report.parts)} checked)")
        return 0
    if report.diverged_at is not None:
        part, why = report.diverged_at
        print(f"replay MISMATCH in {part}: {why}; save says state {want}", file=sys.stderr)
        return 1
    print(f"replay MISMATCH in {', '.join(report.diverged)}:", file=sys.stderr)
    for part, (mine, saved) in report.parts.items():
        print(
            f"  {part:7} replayed {mine}, save says {saved}" + ("  <- differs" if mine != saved else ""),
            file=sys.stderr,
        )
    return 1


def cmd_trust(args: Namespace) -> int:
    """Σ-Mem trust per NPC and topic, credibility, and (with --audit) the gate's decisions."""
    from game.core.text import shown
    from game.play.session import Game

    game = Game.load(args.save, base=args.saves_dir)
    if game.facts is None:
        raise InputError(f"save {args.save!r} has no world-fact memory")
    facts, gate = game.facts, game.facts.gate
    if args.source is not None and args.source not in game.spec.npcs:
        from game.core.errors import did_you_mean

        raise InputError(
            f"--source: no NPC {args.source!r} in {game.spec.id}",
            hint=did_you_mean(args.source, game.spec.npcs) or f"NPCs: {', '.join(game.spec.npcs)}",
        )
    table = facts.trust_table()
    audit = gate.audit(source=args.source, outcome=args.outcome) if (args.audit or args.json) else []
    if args.json:
        print(
            json.dumps(
                {
                    "turn": game.engine.state.turn,
                    "trust": table,
                    "credibility": {p: {t: facts.credibility(p, t) for t in row} for p, row in table.items()},
                    "facts": [vars(f) for f in gate.facts.values()],
                    "audit": [d.to_dict() for d in audit],
                },
                indent=1,
                default=list,
            )
        )
        return 0
    topics = sorted({t for row in table.values() for t in row})
    print(
        f"trust at turn {game.engine.state.turn} (Σ-Mem score per topic, -1 liar .. +1 reliable; "
        f"0 = no verified claims yet)"
    )
    width = max([len("npc"), *map(len, table)])
    print(f"{'npc':{width}}  " + "  ".join(f"{t[:10]:>10}" for t in topics))
    for npc, row in table.items():
        print(f"{npc:{width}}  " + "  ".join(f"{row.get(t, 0.0):>+10.3f}" for t in topics))
    counts = {o: len(gate.audit(outcome=o)) for o in ("admit", "quarantine", "reject")}
    live = {s: sum(f.status == s for f in gate.facts.values()) for s in ("admitted", "verified", "quarantined")}
    print(
        f"\ngate: {counts['admit']} admitted, {counts['quarantine']} quarantined, {counts['reject']} rejected "
        f"decisions; world facts now {live['verified']} verified, {live['admitted']} admitted, "
        f"{live['quarantined']} held"
    )
    if args.audit:
        print(f"\n{'#':>4} {'turn':>4} {'source':12} {'outcome':10} {'score':>5} {'cred':>5}  claim -- reason")
        for d in audit:
            c = d.candidate
            print(
                shown(
                    f"{d.seq:>4} {d.turn:>4} {c['source'][:12]:12} {d.outcome:10} {d.score:5.2f} "
                    f"{d.credibility:5.2f}  {c['subject']} {c['relation']} {c['object']} -- {d.reason}"
                )
            )
    return 0


def cmd_inspect(args: Namespace) -> int:
    """Rebuild an agent's context from a save (without touching recency) and explain every candidate."""
    from game.core.text import shown
    from game.play.session import Game

    game = Game.load(args.save, base=args.saves_dir)
    if game.memory is None:
        raise InputError(
            f"save {args.save!r} was made with memory off", hint="play with memory on (the default) to inspect contexts"
        )
    eng = game.engine
    if args.agent not in eng.state.where:
        from game.core.errors import did_you_mean

        raise InputError(
            f"no agent {args.agent!r} in {game.spec.id}",
            hint=did_you_mean(args.agent, eng.order) or f"agents: {', '.join(eng.order)}",
        )
    if getattr(args, "tui", False):  # the memory inspector screen over this save; nothing is played or saved
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise InputError("--tui needs a terminal", hint="leave --tui out to print the explanation here")
        from game.tui.screens.memory import InspectApp

        return int(InspectApp(game, args.agent).run() or 0)
    ctx = game.memory.context(args.agent, eng.observe(args.agent), touch=False)
    rows = game.memory.optimizer.explain(args.agent, ctx.turn)
    if args.json:
        print(
            json.dumps(
                {
                    "agent": args.agent,
                    "turn": ctx.turn,
                    "tokens": ctx.tokens,
                    "budget": ctx.budget,
                    "context": ctx.sections,
                    "candidates": rows,
                },
                indent=1,
            )
        )
        return 0
    print(f"context for {args.agent} at turn {ctx.turn}: {ctx.tokens} tokens of {ctx.budget}, {len(rows)} candidates\n")
    print(shown(ctx.text()) or "(empty)")
    fates: dict[str, int] = {}
    for r in rows:
        fates[r["fate"]] = fates.get(r["fate"], 0) + 1
    print("\ncandidates: " + ", ".join(f"{v} {k}" for k, v in sorted(fates.items())))
    print(f"{'id':>6} {'fate':10} {'score':>6} {'rel':>5} {'rec':>5} {'imp':>5}  why / text")
    listed = rows if args.all else rows[:40]
    for r in listed:
        why = r["reason"] + (f" -> {r['into']}" if r["into"] else "")
        extra = f" [{'; '.join(r['adjustments'])}]" if r["adjustments"] else ""
        print(
            shown(
                f"{r['id']:>6} {r['fate']:10} {r['score']:6.3f} {r['relevance']:5.2f} {r['recency']:5.2f} "
                f"{r['importance']:5.2f}  {why}{extra}\n{'':>41}{r['text'][:100]}"
            )
        )
    if len(rows) > len(listed):
        print(f"... {len(rows) - len(listed)} more (use --all)")
    return 0
