"""The LLM benchmark's tables, printed with rich from the summaries of ``benchmarks.llm.report``
(``markdown=True``: as Markdown tables, for the docs)."""

from __future__ import annotations

import math
from typing import Any

from rich import box
from rich.table import Table


def _ci(v: Any, fmt: str = "{:.2f}") -> str:
    m, lo, hi = v
    if any(map(math.isnan, (m, lo, hi))):
        return "–"
    return f"{fmt.format(m)} [{fmt.format(lo)}, {fmt.format(hi)}]"


def _share(k: int, n: int, ci: Any) -> str:
    return f"{k}/{n} [{ci[0]:.0%}, {ci[1]:.0%}]" if n else "–"


def _table(title: str, cols: tuple[str, ...], markdown: bool, left: int = 1) -> Table:
    t = Table(title=title, box=box.MARKDOWN if markdown else box.SIMPLE_HEAD, title_justify="left")
    for i, col in enumerate(cols):
        t.add_column(col, justify="left" if i < left else "right")
    return t


def seats(table: dict[str, dict[str, Any]], markdown: bool = False) -> Table:
    cols = ("seat", "mode", "moves", "unusable [95% CI]", "off list", "repairs", "calls/move")
    cols += ("prompt tok/move", "compl. tok/move", "s/move median", "s/move p90", "cached share", "reply format")
    t = _table("Seats: one row per seat and reply mode", cols, markdown, left=2)
    for key, g in table.items():
        seat, mode = key.split(" | ")
        t.add_row(
            seat,
            mode,
            str(g["moves"]),
            _share(g["unusable"], g["moves"], g["unusable_ci"]),
            "–" if g.get("off_list") is None else str(g["off_list"]),
            str(g["repairs"]),
            f"{g['calls_per_move']:.2f}",
            f"{g['prompt_per_move']:.0f}",
            f"{g['completion_per_move']:.0f}",
            f"{g['s_median']:.2f}",
            f"{g['s_p90']:.2f}",
            f"{g['cached_share']:.0%}",
            ", ".join(g["formats"]),
        )
    return t


def negotiation(summary: dict[str, Any], tuning: dict[str, float], markdown: bool = False) -> list[Table]:
    base = summary["baseline"]
    tu = _table("Tuning seeds: mean own utility of each rule-based kind in the seat", ("kind", "utility"), markdown)
    for kind, m in sorted(tuning.items(), key=lambda kv: -kv[1]):
        tu.add_row(kind, f"{m:.3f}")
    cols = ("seat", "cells", "agreements [95% CI]", "own utility [95% CI]", "distance to frontier", "moves/cell")
    t = _table(
        f"Negotiation, held-out cells: the LLM and {base} (picked on the tuning seeds) in the same seat", cols, markdown
    )
    for who in summary.get("seats", ("LLM", base)):
        s = summary[who]
        t.add_row(
            who,
            str(s["cells"]),
            _share(s["agreements"], s["cells"], s["agreement_ci"]),
            _ci(s["utility"], "{:.3f}"),
            _ci(s["frontier_distance"], "{:.3f}"),
            f"{s['moves']:.1f}",
        )
    t.add_row(
        f"LLM − {base} (paired)",
        str(summary["paired_cells"]),
        "",
        _ci(summary["utility_difference"], "{:+.3f}"),
        _ci(summary["frontier_distance_difference"], "{:+.3f}"),
        "",
    )
    if "utility_difference_by_scene" in summary:
        scenes = _ci(summary["utility_difference_by_scene"], "{:+.3f}")
        t.add_row(f"LLM − {base} (paired, scenes resampled)", "", "", scenes, "", "")
    for who, s in summary.get("against", {}).items():
        t.add_row(f"LLM − {who} (paired)", str(s["cells"]), "", _ci(s["utility"], "{:+.3f}"), "", "")
        t.add_row(f"LLM − {who} (paired, scenes resampled)", "", "", _ci(s["by_scene"], "{:+.3f}"), "", "")
    cols = ("cells", "n", "LLM utility", f"{base} utility", "LLM agreements", f"{base} agreements")
    d = _table("By opponent and by opener (mean own utility)", cols, markdown)
    for part in ("by_opponent", "by_opener"):
        for name, s in summary[part].items():
            d.add_row(
                name,
                str(s["cells"]),
                f"{s['LLM utility']:.3f}",
                f"{s['baseline utility']:.3f}",
                str(s["LLM agreements"]),
                str(s["baseline agreements"]),
            )
    kinds, offers = summary["llm_move_kinds"], summary["llm_offers"]
    cols = (*kinds, "offers repeating its last", "offer's own utility / its best acceptable offer")
    k = _table("The LLM's moves by kind, and its offers", cols, markdown, left=0)
    k.add_row(
        *(str(v) for v in kinds.values()), f"{offers['repeated']} of {offers['offers']}", _ci(offers["utility_vs_best"])
    )
    return [tu, t, d, k]


def adventure(summary: dict[str, Any], budget: int, markdown: bool = False) -> list[Table]:
    cols = ("context", "games", "turns", "score", "quests", "rooms", "look/examine share", "unusable", "off list")
    cols += ("tok/turn", "memory tok", "s/turn median", "s/turn p90", "history over the limit", "distinct games")
    title = f"Adventure: the memory section at most {budget} tokens (means over games, 95% bootstrap)"
    t = _table(title, cols, markdown)
    for arm, s in summary["arms"].items():
        t.add_row(
            arm if arm != "none" else "none (memory off)",
            str(s["games"]),
            str(s["turns"]),
            _ci(s["score"], "{:.1f}"),
            _ci(s["quests"], "{:.2f}"),
            _ci(s["rooms"], "{:.1f}"),
            _ci(s["looping"], "{:.2f}"),
            str(s["unusable"]),
            str(s["off_list"]),
            f"{s['tokens_per_turn']:.0f}",
            f"{s['context_tokens']:.0f}",
            f"{s['s_median']:.2f}",
            f"{s['s_p90']:.2f}",
            f"{s['forced_share']:.0%}",
            str(s["distinct_games"]),
        )
    cols = ("against", "games", "score", "quests", "rooms", "look/examine share")
    p = _table("MEMO minus each other context, paired by world and seed (95% bootstrap)", cols, markdown)
    for arm, s in summary["paired"].items():
        p.add_row(
            arm,
            str(s["games"]),
            _ci(s["score"], "{:+.1f}"),
            _ci(s["quests"], "{:+.2f}"),
            _ci(s["rooms"], "{:+.1f}"),
            _ci(s["looping"], "{:+.2f}"),
        )
    c = _table("The player's most frequent commands", ("context", "command (turns)"), markdown)
    for arm, s in summary["arms"].items():
        c.add_row(arm, "; ".join(f"{cmd} ({n})" for cmd, n in s["top_commands"]))
    return [t, p, c]


def goals(g: dict[str, dict[str, Any]], markdown: bool = False) -> Table:
    t = _table("Goals", ("goal", "measured", "met"), markdown, left=3)
    for name, v in g.items():
        shown = ", ".join(
            f"{k} {x:.2f}" if isinstance(x, float) else f"{k} {x}" for k, x in v.items() if k != "met" and x != ""
        )
        t.add_row(name, shown, {True: "yes", False: "NO", None: "reported"}[v["met"]])
    return t


def player_games(games: list[dict[str, Any]], markdown: bool = False) -> Table:
    """Part 1's games (memory off), by world and mode: means over the games."""
    cols = ("world", "mode", "games", "turns", "score", "quests done", "rooms", "look/examine share")
    t = _table("Player games of the seats part, memory off (means over games)", cols, markdown, left=2)
    for world, mode in dict.fromkeys((g["world"], g["mode"]) for g in games):
        gs = [g for g in games if (g["world"], g["mode"]) == (world, mode)]
        n = len(gs)
        t.add_row(
            world,
            mode,
            str(n),
            str(sum(g["turns"] for g in gs)),
            f"{sum(g['score'] for g in gs) / n:.1f}",
            str(sum(g["quests"] for g in gs)),
            f"{sum(g['rooms'] for g in gs) / n:.1f}",
            f"{sum(g['looping'] for g in gs) / n:.2f}",
        )
    return t


def baselines(table: dict[str, dict[str, Any]], markdown: bool = False) -> Table:
    """The LLM player (memory off, structured) minus each no-model baseline, paired by seed."""
    cols = ("world", "baseline", "seeds", "baseline games", "score", "quests", "rooms", "look/examine share")
    cols += ("baseline unusable",)
    title = "The LLM player (memory off) minus each no-model baseline, paired by world and seed (95% bootstrap)"
    t = _table(title, cols, markdown, left=2)
    for key, s in table.items():
        world, kind = key.split(" | ")
        t.add_row(
            world,
            kind,
            str(s["seeds"]),
            str(s["games"]),
            _ci(s["score"], "{:+.1f}"),
            _ci(s["quests"], "{:+.2f}"),
            _ci(s["rooms"], "{:+.1f}"),
            _ci(s["looping"], "{:+.2f}"),
            f"{s['unusable']}/{s['turns']}",
        )
    return t


def show(console: Any, results: dict[str, Any], markdown: bool = False) -> None:
    """Every table of a run's results (as saved in the JSON file)."""
    console.print(seats(results["seats"], markdown))
    if results.get("player_games"):
        console.print(player_games(results["player_games"], markdown))
    if results.get("baselines"):
        console.print(baselines(results["baselines"], markdown))
    neg = results.get("negotiation")
    if neg:
        for t in negotiation(neg["summary"], neg["tuning"], markdown):
            console.print(t)
    adv = results.get("adventure")
    if adv:
        for t in adventure(adv, results["args"]["budget"], markdown):
            console.print(t)
    console.print(goals(results["goals"], markdown))
