"""The gate benchmark's Markdown page (docs/benchmarks/gate_bench.md), written from one run's figures."""

from __future__ import annotations

import math

from benchmarks.gate.costs import COSTS
from benchmarks.gate.tables import Table, ci, cost_table, curve_table, diff_table, pct, tuned_table, wording_table

ORACLE = "oracle bound (observable evidence, generative model)"


def markdown(table: Table, bold_first: str | None = None) -> str:
    title, header, rows = table
    out = [f"**{title}**", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        cells = [c.replace("|", "\\|") for c in r]
        if bold_first and cells[0] == bold_first:
            cells[0] = f"**{cells[0]}**"
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def _verdict(d: list[float], better_if_negative: bool) -> str:
    """'better', 'worse' or 'level' for a paired difference with its interval."""
    if any(math.isnan(x) for x in d):
        return "level"
    lo, hi = d[1], d[2]
    if lo > 0:
        return "worse" if better_if_negative else "better"
    if hi < 0:
        return "better" if better_if_negative else "worse"
    return "level"


def _class_table(summ: dict, names: list[str], order: list[str]) -> Table:
    header = ["class", "writes", "false", *names]
    first = summ[names[0]]["per_class"]
    rows = []
    for cls in sorted(first, key=lambda c: order.index(c) if c in order else 99):
        r = first[cls]
        rows.append(
            [cls, str(r["n"]), pct(r["n_false"] / r["n"]), *(pct(summ[n]["per_class"][cls]["correct"]) for n in names)]
        )
    return "Correct decisions per class (a false claim rejected, a true one not rejected)", header, rows


def page(args, tuned: dict, summ: dict, stats: dict, diffs: dict, curve: dict, seconds: float) -> str:
    gate = summ.get("gate", {}).get("metrics")
    best = diffs.get("best_baseline", "")
    d = diffs.get("by_method", {}).get(best, {})
    oracle = summ.get(ORACLE, {}).get("metrics")
    costs = ", ".join(f"{k.replace('_', ' ')} {v:g}" for k, v in COSTS.items())
    s = [
        "# Consistency gate",
        "",
        "The [consistency gate](../design/consistency-gate.md) against baselines tuned as well as it is, and",
        "beside an oracle bound, on a labelled stream of world-fact claims written from a simulated world.",
        "This page is written by the benchmark itself:",
        "",
        "```sh",
        "python -m benchmarks.gate_bench --page docs/benchmarks/gate_bench.md --plot docs/benchmarks/gate_tradeoff.png",
        "python -m benchmarks.gate_bench --quick      # a smaller run for development",
        "python -m benchmarks.gate_bench --llm URL    # adds the gate with an LLM jury as a row",
        "```",
        "",
        f"This run: held-out seeds {args.seeds}, {args.writes} writes each, baselines tuned on seeds "
        f"{args.tune_seeds}, the oracle's model fitted on seeds {args.oracle_seeds}, the trade-off curves on "
        f"seeds {args.curve_seeds}; embedder `{args.embedder}`; {seconds:.0f} s on 2 busy cores.",
        "",
        "## The stream",
        "",
        "A seeded world (`benchmarks/gate/stream.py`) has a hidden truth over time: things move",
        "(`located_in`), prices change (`price`), things are sold (`owned_by`); who knows whom and who",
        "arrived first are fixed. Sixteen named sources have a hidden honesty per topic and a credibility",
        "the gate is told, correlated but not equal (trusted liars, untrusted truth-tellers, strangers at",
        "0.5, sybil bursts of fresh ids). Each label is the hidden truth at the write's turn. Twenty classes",
        "of write: new-true, new-false, correction, restatement, true-update, hallucination, stale,",
        "stale-held, alias, synonym, paraphrase, units, number-words, negation, temporal, chain, collusion,",
        "corroboration, sybil, repeat; about half of each class arrives as text through `gate.hear` (every",
        "paraphrase does), and one event in ten is a verified observation.",
        "",
        f"Held-out: {stats['writes']:,} writes, {100 * stats['false'] / stats['writes']:.0f}% false, "
        f"{stats['text']:,} as text, {stats['observations']:,} observations. Credibility against truth: "
        + "; ".join(
            f"{b} sources {c['mean_credibility']:.2f} told, {100 * c['true_share']:.0f}% true"
            for b, c in stats["calibration"].items()
        )
        + ".",
        "",
        "## What the gate is given",
        "",
        "The gate's lexicon comes from a world file alone, `benchmarks/gate/world/world.toml`, loaded",
        "by `game.world.loader` and turned into a lexicon by `memory.lexicon.Lexicon.from_spec`, as a",
        "game does. It declares what an author would write: a name and one or two short aliases per",
        "thing, two or three words per relation, the unit of prices, the change rates, and a few rumours",
        "whose topics are the topics trust is kept on. The stream's generator words its claims in many",
        "more ways (every alias of its tables, more relation words, hand-written paraphrases); none of its",
        "tables reaches the gate. `parley lexicon benchmarks/gate/world` shows what the gate holds.",
        f"The world file covers the wording of {stats['declared']:,} of the {stats['writes']:,} held-out",
        "writes; the rest ("
        + ", ".join(f"{n} {c}" for c, n in stats["undeclared_by_class"].items())
        + ") test generalisation.",
        "",
        'The baselines get each claim\'s meaning for free: the "oracle ids" ones its canonical ids (every',
        'alias, synonym, unit and paraphrase resolved), "exact strings" the spans an oracle parser would',
        "cut from the sentence. The gate reads its own claims; a text it reads nothing from is outcome",
        '"none".',
        "",
        "## How methods are scored and tuned",
        "",
        f"One cost per write, fixed before measuring (`benchmarks/gate/costs.py`): {costs}; an admitted",
        "true claim and a rejected false one cost nothing, and a text the gate reads nothing from counts",
        "as rejected (it is out for good). Every baseline's parameters were searched on a grid for the",
        "least cost on the tune seeds (`benchmarks/gate/tuning.py`) before the held-out seeds were",
        'generated. "F1 kept out" takes a false claim as the positive case and rejection or holding as',
        "the positive prediction (a text read as nothing counts as admitted there). Brackets are 95%",
        "bootstrap intervals over held-out seeds; differences are paired over the same seeds.",
        "",
        "The oracle bound (`benchmarks/gate/oracle.py`) is the best decision the observable evidence",
        "supports under the stream's generative model: for each write, P(true) given only what a gate",
        "could have seen by then -- the claim read perfectly, the told credibility of its source, the",
        "claims heard before with their sources and turns, the observations before, each source's record",
        "against them, and the world's change rates -- fitted with gradient boosting on seeds that are",
        "neither tuned on nor held out, then the decision with the least expected cost. It reads no label",
        "and no hidden honesty for a write (`tests/test_gate_bench_costs.py` guards this). It is an",
        "estimate of the bound, not a proof: a better model of the same evidence could do better. It also",
        "learns what this stream makes observable and a real world may not: here only sybils speak without",
        "having spoken before.",
        "",
        "## Figures",
        "",
        markdown(cost_table(summ), "gate"),
    ]
    if diffs:
        s.append(markdown(diff_table(diffs)))
    s += [markdown(tuned_table(tuned)), markdown(wording_table(summ), "gate")]
    if curve:
        s += [
            "## Trade-off",
            "",
            "![False claims admitted against true claims rejected and held](gate_tradeoff.png)",
            "",
            "The gate with its cut points on the posterior (`t_low`, `t_high`) over a grid, beside the",
            "cut points its costs give (default); the hold band over its tuning grid (the settings no other beats on false",
            "claims admitted, true claims rejected and true claims held); the oracle bound with its",
            "reject / admit thresholds swept. Tune seeds only.",
            "",
            markdown(curve_table(curve)),
        ]
    names = [n for n in ("gate", best, ORACLE) if n in summ]
    if names:
        s.append(markdown(_class_table(summ, names, list(stats["by_class"]))))
    s += _losses(gate, oracle, d, best, summ)
    return "\n".join(s).rstrip() + "\n"


def _losses(gate, oracle, d, best, summ) -> list[str]:
    if gate is None:
        return []
    out = ["## Where the gate stands, and where it loses", ""]
    if d:
        out.append(
            f"- Against the best baseline on the tune seeds ({best}), the gate's cost per write is "
            f"{_verdict(d['cost'], True)} ({ci(d['cost'], signed=True)}) and its kept-out F1 "
            f"{_verdict(d['f1_kept_out'], False)} ({ci(d['f1_kept_out'], signed=True)})."
        )
    if oracle is not None:
        out.append(
            f"- The oracle bound costs {oracle['cost'][0]:.3f} per write against the gate's "
            f"{gate['cost'][0]:.3f}: admitting {pct(oracle['poison_admitted'][0])} of false claims "
            f"(gate {pct(gate['poison_admitted'][0])}), rejecting {pct(oracle['true_rejected'][0])} of true "
            f"ones (gate {pct(gate['true_rejected'][0])}, of which {pct(gate['true_unread'][0])} are texts it "
            f"read nothing from) and holding {pct(oracle['true_held'][0])} (gate {pct(gate['true_held'][0])})."
        )
    hold = summ.get("hold all", {}).get("metrics")
    if hold is not None and hold["cost"][0] < gate["cost"][0]:
        out.append(
            f"- Holding every write costs less than the gate ({hold['cost'][0]:.3f} against {gate['cost'][0]:.3f} per "
            "write): with these costs, what the gate admits wrongly and loses outweighs what it saves by not holding."
        )
    pc_o = summ.get(ORACLE, {}).get("per_class", {})
    pc_g = summ["gate"]["per_class"]
    gaps = sorted(((pc_o[c]["correct"] - pc_g[c]["correct"], c) for c in pc_g if c in pc_o), reverse=True)[:4]
    if gaps:
        out.append(
            "- The classes where the gate falls furthest below the oracle bound (share decided right): "
            + "; ".join(f"{c} {pct(pc_g[c]['correct'])} against {pct(pc_o[c]['correct'])}" for _, c in gaps)
            + "."
        )
    w = summ["gate"].get("wording", {})
    if "declared" in w and "undeclared" in w:
        out.append(
            f"- Wording the world file does not declare costs the gate {w['undeclared']['cost'][0]:.3f} per write "
            f"against {w['declared']['cost'][0]:.3f} where it does; it reads nothing from "
            f"{pct(w['undeclared']['extraction_miss'][0])} of such texts (mostly paraphrases with no relation word "
            "the world lists, about things the world's rumours say nothing of)."
        )
    out.append(
        f"- Goals: F1 >= 0.9 over all classes {'met' if gate['f1'][0] >= 0.9 else 'missed'} "
        f"({gate['f1'][0]:.3f} strict, {gate['f1_kept_out'][0]:.3f} kept out); false claims admitted <= 5% "
        f"{'met' if gate['poison_admitted'][0] <= 0.05 else 'missed'} ({pct(gate['poison_admitted'][0])}); true "
        f"updates rejected <= 5% {'met' if gate['updates_rejected'][0] <= 0.05 else 'missed'} "
        f"({pct(gate['updates_rejected'][0])})."
    )
    return [*out, ""]
