"""The held-out benchmark's figures as text (for the terminal) and as a Markdown page."""

from __future__ import annotations

import math

FIGURE_LABELS = {
    "poison_admitted": "poison admitted (false claims admitted)",
    "updates_rejected": "true updates rejected",
    "true_held": "true claims held (quarantined)",
    "true_rejected": "true claims rejected",
    "traps_corroborated": "traps admitted as corroboration (count per seed)",
    "traps_corroborated_share": "traps admitted as corroboration (share of traps)",
    "read_as_no_claim": "sentences with a claim read as no claim",
    "misread": "claims misread (read, not as meant)",
    "no_claim_read_as_claim": "sentences without a claim read as a claim",
    "no_claim_admitted": "sentences without a claim: something admitted",
    "f1_kept_out": "kept-out F1 (false = positive; held counts as kept out)",
    "f1_kept_out_read": "kept-out F1 on the claims read as meant",
}
COUNTS = ("traps_corroborated",)
CLASS_COLUMNS = (
    ("claims", "claims"),
    ("false", "false"),
    ("unread", "unread"),
    ("misread", "misread"),
    ("false_admit", "false admitted"),
    ("true_out", "true kept out"),
    ("corroborated", "traps corroborated"),
    ("cred_false_admit", "threshold: false admitted"),
)


def fmt(name: str, v: float) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    return f"{v:.1f}" if name in COUNTS else f"{100 * v:.1f}%"


def cell(name: str, triple) -> str:
    v, lo, hi = triple
    return f"{fmt(name, v)} [{fmt(name, lo)}, {fmt(name, hi)}]"


def _class_cells(row: dict) -> list[str]:
    out = []
    for key, _ in CLASS_COLUMNS:
        v = row.get(key)
        if key in ("claims", "false", "corroborated"):
            out.append(str(int(v)) if v is not None else "—")
        else:
            out.append(fmt(key, v))
    return out


def class_rows(result: dict) -> list[list[str]]:
    rows = []
    for cls, row in result["per_class"].items():
        merged = dict(row)
        merged["false_admit"] = row.get("false_admit")
        merged["true_out"] = _sum(row.get("true_quarantine"), row.get("true_reject"))
        merged["cred_false_admit"] = result["per_class_threshold"].get(cls, {}).get("false_admit")
        rows.append([cls, *_class_cells(merged)])
    return rows


def _sum(a, b):
    if a is None or b is None or (math.isnan(a) and math.isnan(b)):
        return float("nan")
    return (0 if math.isnan(a) else a) + (0 if math.isnan(b) else b)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(r) + " |" for r in rows]


def figure_rows(result: dict) -> list[list[str]]:
    methods = result["methods"]
    return [[label] + [cell(name, methods[m][name]) for m in methods] for name, label in FIGURE_LABELS.items()]


def print_report(result: dict) -> None:
    print(_header_line(result))
    for line in _table(["figure", *result["methods"]], figure_rows(result)):
        print(line)
    print("\nPer class (the gate; 'threshold' = the credibility-threshold baseline):")
    for line in _table(["class", *[h for _, h in CLASS_COLUMNS]], class_rows(result)):
        print(line)
    print("\nBy wording of the relation:")
    for line in _table(["wording", "writes", "unread", "misread"], wording_rows(result)):
        print(line)
    if result["errors"]:
        print(f"\n{len(result['errors'])} writes raised in the gate, e.g. {result['errors'][0]}")


def wording_rows(result: dict) -> list[list[str]]:
    return [[k, str(v["writes"]), fmt("r", v["unread"]), fmt("r", v["misread"])] for k, v in result["wording"].items()]


def _header_line(result: dict) -> str:
    world = "units, clock and time relation loaded" if result["world_full"] else "loaded without units/clock/kind"
    return (
        f"Held-out gate stream: seeds {result['seeds']}, {result['writes']} writes each "
        f"({result['n_writes']} writes, {result['n_claims']} claims, {100 * result['false_share']:.0f}% false; "
        f"told credibility ranks a true claim above a false one with AUROC {result['cred_auroc']:.2f}); "
        f"world: {world}; credibility threshold {result['threshold']:.2f}, threshold + observations "
        f"{result['obs_baseline'][0]:.2f} with observations trusted for {_window(result['obs_baseline'][1])} "
        f"(tuned on seeds {result['tune_seeds']}); "
        f"gate {result['gate_seconds']:.1f} s"
    )


def _window(turns: float) -> str:
    return "ever" if turns >= 1e8 else f"{turns:g} turns"


def markdown(result: dict) -> str:
    out = [
        "# Consistency gate: held-out stream",
        "",
        "A held-out test of the consistency gate: a world of its own (the Sallowford lock flight,",
        "`benchmarks/gate_blind/world/world.toml`) and a seeded, labelled stream over it in wording of its own",
        "(`benchmarks/gate_blind/`), kept apart from the material the gate is tuned on. Generated by",
        "",
        "```sh",
        f"python -m benchmarks.gate_blind_bench --seeds {result['seeds']} --markdown docs/benchmarks/gate_blind.md",
        "```",
        "",
        _header_line(result) + ".",
        "",
        "The hidden truth changes over time: boats move and change skippers, stores are moved, locks change",
        "their tolls (marks; pence and crowns convert), their opening times (times of day) and the water over",
        "their sills (feet; inches and fathoms convert). Twelve sources have a hidden honesty per topic and a",
        "told credibility loosely correlated with it; strangers and drifters get 0.5. One event in ten is a",
        "verified observation. Each claim's label is the hidden truth at its turn. Traps carry a value a",
        "careless reader would take for the true one (the true number in pence or crowns, an opening hour",
        "equal to the toll, a stray count of weeks); a trap read as that value and admitted counts as",
        "corroboration. Sentences without a claim (questions, conditionals, hearsay, wishes) carry no label.",
        "",
        "Baselines get the intended claims (oracle ids): *admit everything*; a threshold on the told",
        "credibility (kept out below it); and the threshold where no observation speaks, a recent",
        "observation (within a window of turns) where one does (admit if it agrees, else reject). Each is",
        "tuned for kept-out F1 on the tune seeds. 95% intervals: bootstrap over seeds. A claim the gate read",
        "as nothing counts as not kept out.",
        "",
        "## Figures",
        "",
        *_table(["figure", *result["methods"]], figure_rows(result)),
        "",
        "## Per class (the gate)",
        "",
        "Shares of claims (unread: share of writes). *true kept out* = held or rejected. For the rows",
        "without a claim (no-claim: questions, conditionals, hearsay, wishes) *unread* is the right outcome.",
        "",
        *_table(["class", *[h for _, h in CLASS_COLUMNS]], class_rows(result)),
        "",
        "## By wording of the relation",
        "",
        "Whether the sentence uses one of the relation's aliases as the world declares them.",
        "",
        *_table(["wording", "writes", "unread", "misread"], wording_rows(result)),
        "",
        "## Where the gate loses",
        "",
        *result["losses"],
        "",
        "## Examples (the gate)",
        "",
        *[f"- {e}" for e in result["examples"]],
        "",
    ]
    return "\n".join(out)
