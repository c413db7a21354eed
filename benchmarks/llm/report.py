"""The LLM benchmark's summaries (plain dicts, saved as JSON) and tables (rich)."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import numpy as np

from benchmarks.lib.stats import mean_ci, paired_ci, wilson
from benchmarks.llm.adventure import ARMS, MEMO, NONE
from benchmarks.llm.common import quantile

PLAYER_GOAL, NEGOTIATION_GOAL, SECONDS_GOAL = 500, 200, 3.0


def seat_label(row: dict[str, Any]) -> str:
    arm = row.get("arm")
    return "player" if arm == NONE else f"player + {arm}" if arm else row["seat"]


def group(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One seats-table row from the rows of one seat and mode."""
    n, k = len(rows), sum(r["unusable"] for r in rows)
    secs = [r["seconds"] for r in rows]
    prompt = sum(r["prompt_tokens"] for r in rows)
    return {
        "moves": n,
        "unusable": k,
        "unusable_ci": wilson(k, n),
        "off_list": sum(r["off_list"] for r in rows) if all("off_list" in r for r in rows) else None,
        "repairs": sum(r["repairs"] for r in rows),
        "calls_per_move": sum(r["calls"] for r in rows) / n if n else float("nan"),
        "prompt_per_move": prompt / n if n else float("nan"),
        "completion_per_move": sum(r["completion_tokens"] for r in rows) / n if n else float("nan"),
        "max_completion_per_call": max((r["completion_tokens"] for r in rows if r["calls"] == 1), default=0),
        "s_median": quantile(secs, 0.5),
        "s_p90": quantile(secs, 0.9),
        "cached_share": sum(r["prompt_cached"] for r in rows) / prompt if prompt else float("nan"),
        "formats": sorted({r["format"] for r in rows}),
    }


def seats_table(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """{"seat | mode": group} for every seat and mode measured (the player's context arms too)."""
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by[f"{seat_label(r)} | {r['mode']}"].append(r)
    return {k: group(v) for k, v in by.items()}


def negotiation_summary(outcomes: list[dict[str, Any]], baseline: str, boot: int, rows: list[dict]) -> dict:
    """Agreement (Wilson), own utility and distance to the frontier (bootstrap) of the LLM and the
    baseline in the same cells, their paired differences, the LLM's utility by opponent and opener,
    and its moves by kind (``rows``: the LLM's structured moves)."""
    closed = [o for o in outcomes if o.get("closed")]
    kinds = Counter(r["kind"] for r in rows if r["seat"] == "negotiator" and r["mode"] == "auto")
    out: dict[str, Any] = {"baseline": baseline, "llm_move_kinds": dict(kinds.most_common())}
    offers = [r for r in rows if r["seat"] == "negotiator" and r["mode"] == "auto" and "offer_utility" in r]
    last: dict[tuple, Any] = {}
    repeats = 0
    for r in offers:  # in the order played
        cell = (r["seed"], r["opponent"], r["party"])
        repeats += last.get(cell) == r["offer"]
        last[cell] = r["offer"]
    out["llm_offers"] = {
        "offers": len(offers),
        "repeated": repeats,
        "utility_vs_best": mean_ci([r["offer_utility"] / r["best_offer_utility"] for r in offers], n_resamples=boot),
    }
    seats = list(dict.fromkeys(("LLM", baseline, *(o["who"] for o in outcomes))))
    out["seats"] = seats
    for who in seats:
        mine = [o for o in closed if o["who"] == who]
        k = sum(o["agreement"] for o in mine)
        out[who] = {
            "cells": len(mine),
            "agreements": k,
            "agreement_ci": wilson(k, len(mine)),
            "utility": mean_ci([o["utility"] for o in mine], n_resamples=boot),
            "frontier_distance": mean_ci([o["frontier_distance"] for o in mine], n_resamples=boot),
            "moves": float(np.mean([o["moves"] for o in mine])) if mine else float("nan"),
        }
    key = lambda o: (o["seed"], o["opponent"], o["party"])  # noqa: E731
    llm = {key(o): o for o in closed if o["who"] == "LLM"}
    base = {key(o): o for o in closed if o["who"] == baseline}
    cells = sorted(set(llm) & set(base))
    for metric in ("utility", "frontier_distance"):
        a, b = [llm[c][metric] for c in cells], [base[c][metric] for c in cells]
        out[f"{metric}_difference"] = paired_ci(a, b, n_resamples=boot) if cells else (float("nan"),) * 3
    out["paired_cells"] = len(cells)
    out["utility_difference_by_scene"] = _by_scene(llm, base, cells, boot)
    out["against"] = {}
    for who in seats[2:]:  # the floors (a random negotiator): LLM minus each, paired by cell
        other = {key(o): o for o in closed if o["who"] == who}
        both = sorted(set(llm) & set(other))
        a, b = [llm[c]["utility"] for c in both], [other[c]["utility"] for c in both]
        out["against"][who] = {
            "cells": len(both),
            "utility": paired_ci(a, b, n_resamples=boot) if both else (float("nan"),) * 3,
            "by_scene": _by_scene(llm, other, both, boot),
        }
    out["by_opponent"] = _split(llm, base, cells, lambda c: c[1])
    out["by_opener"] = _split(llm, base, cells, lambda c: "LLM opens" if c[2] == "a" else "opponent opens")
    return out


def _by_scene(llm: dict, base: dict, cells: list, boot: int) -> tuple[float, float, float]:
    """The paired utility difference with the scene as the resampled unit: the cells of one scene
    (its opponents and openers) share its issues and utilities, so they are not independent draws."""
    scenes = sorted({c[0] for c in cells})
    if not scenes:
        return (float("nan"),) * 3
    a = [float(np.mean([llm[c]["utility"] for c in cells if c[0] == s])) for s in scenes]
    b = [float(np.mean([base[c]["utility"] for c in cells if c[0] == s])) for s in scenes]
    return paired_ci(a, b, n_resamples=boot)


def baseline_comparison(games: list[dict[str, Any]], boot: int) -> dict[str, dict[str, Any]]:
    """The LLM player's structured memory-off games minus each no-model baseline's, paired by world
    and seed (a baseline's value at a seed: the mean of its games there); {"world | kind": ...}."""
    llm = {(g["world"], g["seed"]): g for g in games if g["mode"] == "auto" and g["arm"] == NONE}
    out: dict[str, dict[str, Any]] = {}
    for kind in dict.fromkeys(g["mode"] for g in games if g["mode"] not in ("auto", "prompt")):
        for world in dict.fromkeys(w for w, _ in llm):
            base: dict[int, list[dict[str, Any]]] = defaultdict(list)
            for g in games:
                if g["mode"] == kind and g["world"] == world:
                    base[g["seed"]].append(g)
            seeds = sorted(s for w, s in llm if w == world and s in base)
            out[f"{world} | {kind}"] = {
                "seeds": len(seeds),
                "games": sum(len(base[s]) for s in seeds),
                **{
                    m: paired_ci(
                        [llm[(world, s)][m] for s in seeds],
                        [float(np.mean([g[m] for g in base[s]])) for s in seeds],
                        n_resamples=boot,
                    )
                    for m in ("score", "quests", "rooms", "looping")
                },
                "unusable": sum(g["unusable"] for s in seeds for g in base[s]),
                "turns": sum(g["turns"] for s in seeds for g in base[s]),
            }
    return out


def _split(llm: dict, base: dict, cells: list, part: Any) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for name in dict.fromkeys(part(c) for c in cells):
        mine = [c for c in cells if part(c) == name]
        out[name] = {
            "cells": len(mine),
            "LLM utility": float(np.mean([llm[c]["utility"] for c in mine])),
            "baseline utility": float(np.mean([base[c]["utility"] for c in mine])),
            "LLM agreements": sum(llm[c]["agreement"] for c in mine),
            "baseline agreements": sum(base[c]["agreement"] for c in mine),
        }
    return out


def adventure_summary(games: list[dict[str, Any]], rows: list[dict[str, Any]], budget: int, boot: int) -> dict:
    """Per arm over its games: score, quests, rooms, looping share (bootstrap over games); unusable
    moves; tokens and seconds per turn; the share of turns at which the history exceeded the budget.
    MEMO against each other arm, paired by (world, seed)."""
    out: dict[str, Any] = {"arms": {}, "paired": {}}
    arms = [a for a in (*ARMS, NONE) if any(g["arm"] == a for g in games)]
    for arm in arms:
        gs, rs = [g for g in games if g["arm"] == arm], [r for r in rows if r.get("arm") == arm]
        out["arms"][arm] = {
            "games": len(gs),
            "turns": len(rs),
            **{m: mean_ci([g[m] for g in gs], n_resamples=boot) for m in ("score", "quests", "rooms", "looping")},
            "unusable": sum(r["unusable"] for r in rs),
            "off_list": sum(r["off_list"] for r in rs),
            "tokens_per_turn": float(np.mean([r["prompt_tokens"] + r["completion_tokens"] for r in rs])),
            "context_tokens": float(np.mean([r["context_tokens"] for r in rs])) if arm != NONE else 0.0,
            "s_median": quantile([r["seconds"] for r in rs], 0.5),
            "s_p90": quantile([r["seconds"] for r in rs], 0.9),
            "forced_share": float(np.mean([r["history_tokens"] > budget for r in rs])),
            "top_commands": Counter(r["command"] for r in rs).most_common(5),
            "distinct_games": len({tuple(r["command"] for r in rs if (r["world"], r["seed"]) == k) for k in _keys(gs)}),
        }
    memo = {(g["world"], g["seed"]): g for g in games if g["arm"] == MEMO}
    for arm in arms:
        if arm == MEMO:
            continue
        other = {(g["world"], g["seed"]): g for g in games if g["arm"] == arm}
        keys = sorted(set(memo) & set(other))
        out["paired"][arm] = {
            m: paired_ci([memo[k][m] for k in keys], [other[k][m] for k in keys], n_resamples=boot)
            for m in ("score", "quests", "rooms", "looping")
        }
        out["paired"][arm]["games"] = len(keys)
    return out


def _keys(games: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(g["world"], g["seed"]) for g in games]


def goals(rows: list[dict[str, Any]], load: float) -> dict[str, dict[str, Any]]:
    """The issue's goals, met or not, from the rows of this run."""
    player = [r for r in rows if r["seat"] == "player" and r["mode"] == "auto"]
    negs = [r for r in rows if r["seat"] == "negotiator" and r["mode"] == "auto"]
    alone = [r["seconds"] for r in player if r["arm"] == NONE]
    with_memo = [r["seconds"] for r in player if r["arm"] == MEMO]
    prompt = sum(r["prompt_tokens"] for r in player)
    out = {}
    for name, got, need in (("player", player, PLAYER_GOAL), ("negotiation", negs, NEGOTIATION_GOAL)):
        bad = sum(r["unusable"] for r in got)
        out[f"0 unusable {name} moves over >= {need}"] = {
            "moves": len(got),
            "unusable": bad,
            "met": bad == 0 and len(got) >= need,
            "note": "" if len(got) >= need else f"only {len(got)} measured",
        }
    med = quantile(alone, 0.5)
    out[f"median <= {SECONDS_GOAL:g} s per player turn"] = {
        "median_s": med,
        "median_s_with_MEMO": quantile(with_memo, 0.5),
        "load": load,
        "met": bool(med <= SECONDS_GOAL),
        "note": "the player seat alone (memory off); the load was measured during the run, not quiet",
    }
    out["cached share of the player's prompt tokens"] = {
        "share": sum(r["prompt_cached"] for r in player) / prompt if prompt else float("nan"),
        "met": None,
    }
    return out
