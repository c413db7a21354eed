"""The Markdown page of the trust benchmark (docs/benchmarks/trust_bench.md), from a finished run of
``python -m benchmarks.trust_bench --out ...``: the printed tables verbatim, with the prose around them."""

from __future__ import annotations

import numpy as np

from benchmarks.lib.stats import mean_ci, paired_ci
from benchmarks.trust_settings import BEFORE, GAME, WITHIN, lies_cell, median_ci

INTRO = """\
# Trust (Σ-Mem)

[Σ-Mem](../design/sigma-mem.md) against the strongest simple baselines: beta reputations kept
per NPC *and* topic, or per NPC, with their forgetting factor, its clock and their prior strength
tuned as carefully as Σ-Mem's own parameters. Every figure on this page comes from

```sh
{command}
```

({seconds:.0f} s here). Tuning uses seeds {tune}; every table reports held-out seeds {held}:
means over seeds with 95% percentile bootstrap intervals (2,000 resamples, seeded), differences
paired by seed. `--quick` is a smoke run; `--help` explains the rest.

"""

SETTINGS = """\
## Where cross-topic structure should help

`benchmarks/trust_settings.py`: three settings, 12 topics, every verified round judges every NPC
on one random topic.

* **Transfer**: honesty carries across topics. 20 NPCs, 40% liars; an NPC's rate of being right on
  a topic is its base rate (honest U(0.7, 0.95), liar U(0.1, 0.35)) moved by N(0, 0.75) on the
  logit scale per topic; a pair is lying when that rate is below 0.5. After 20 judged claims an NPC
  has under 2 per topic.
* **Sleepers**: 10 NPCs, 2 of them right 90% of the time for 120 rounds, then wrong 90% of the time
  on every topic. A source is *flagged* when it scores below neutral on at least half the topics;
  the figure is the lies (judged wrong claims) it told until then. Censored runs count as never.
  A configuration may flag at most 5% of the steady NPCs during the same window.
* **Colluders**: 12 NPCs, 4 of whom lie together (all wrong on the same round) 45% of the time
  and are otherwise right 85% of the time; the others are right U(0.65, 0.95) per topic.

Each family was tuned per setting on the tune seeds: Σ-Mem over decay (along the judged topic, or
every event) × γ ∈ {{0.8, 0.9, 0.95, 0.98}} × the shared share ρ ∈ {{0, 0.25, 0.5, 0.75, 0.9}} (40
configurations); the per-(NPC, topic) beta over its clock (every verified event, or only when that
NPC and topic is judged) × λ ∈ {{0.8, 0.9, 0.95, 0.98, 1}} × prior strength a ∈ {{0.5, 1, 2}} (30);
the per-NPC beta over λ × a (15). Winners: {winners}.

**The game's Σ-Mem** (`SigmaMem.for_world`, what `memory/fact_listener.py` builds) is not tuned
per setting. It was set by one rule on the tune seeds: among configurations with the game's decay
(along the judged topic), those within the goals against the tuned per-(NPC, topic) beta in all
three settings; of those the least pooling, then the best AUROC. The rule picks
`{choice}`; the game uses `{game}`. The last row of each table is the game's Σ-Mem before
pooling (declared topics fully apart, γ = 0.95). The game's M-Vote weighs claimants by their
evidence on the claim's topic alone (`vote_evidence="topic"`, see section 3 below).

"""


def block(text: str) -> str:
    return "```text\n" + text.strip("\n") + "\n```\n"


def settings_summary(st: dict) -> str:
    ho = st["held_out"]
    names = {k: list(ho[k]) for k in ho}

    def auc(setting: str, i: int) -> str:
        return f"{mean_ci(ho[setting][names[setting][i]][20])[0]:.3f}"

    def diff(setting: str, i: int) -> str:
        d = paired_ci(ho[setting][GAME][20], ho[setting][names[setting][i]][20])
        return f"{d[0]:+.3f} [{d[1]:+.3f}, {d[2]:+.3f}]"

    sl = ho["sleepers"]
    med = {n: lies_cell(median_ci(sl[n]["lies"])) for n in sl}
    within = {n: 100 * float(np.mean(np.asarray(sl[n]["lies"]) <= WITHIN)) for n in sl}
    s = names["sleepers"]
    return (
        f"After 20 judged claims the game's Σ-Mem scores AUROC {auc('transfer', 0)} where honesty carries "
        f"across topics, against {auc('transfer', 2)} for the tuned per-(NPC, topic) beta "
        f"({diff('transfer', 2)}) and {auc('transfer', 3)} for the tuned per-NPC beta ({diff('transfer', 3)}); "
        f"before pooling it scored {auc('transfer', 4)}. With colluders: {auc('collusion', 0)} against "
        f"{auc('collusion', 2)} ({diff('collusion', 2)}) and {auc('collusion', 3)} ({diff('collusion', 3)}). "
        f"A sleeper is flagged after a median of {med[GAME]} lies ({within[GAME]:.0f}% within {WITHIN}), "
        f"against {med[s[2]]} ({within[s[2]]:.0f}%) for the tuned per-(NPC, topic) beta and {med[s[3]]} "
        f"({within[s[3]]:.0f}%) for the tuned per-NPC beta; before pooling Σ-Mem needed {med[BEFORE]} "
        f"({within[BEFORE]:.0f}% within {WITHIN}).\n"
    )


def losses(goal_rows: list[dict]) -> str:
    rows = [g for g in goal_rows if g["status"] in ("loss", "NOT met")]
    if not rows:
        return "No goal on this page is lost or missed.\n"
    return "".join(f"* {g['goal']}: **{g['status']}** ({g['figures']}).\n" for g in rows)


def page(command: str, seconds: float, tune: str, held: str, printed: dict[str, str], st: dict, goal_rows) -> str:
    best = st["best"]
    winners = "; ".join(f"{setting}: " + ", ".join(f"`{v}`" for v in b.values()) for setting, b in best.items())
    parts = [
        INTRO.format(command=command, seconds=seconds, tune=tune, held=held),
        SETTINGS.format(winners=winners, choice=st["game_choice"]["choice"], game=st["game_choice"]["game"]),
        settings_summary(st),
        "\n" + block(st["tables"]["transfer"]),
        "\n" + block(st["tables"]["collusion"]),
        "\n" + block(st["tables"]["sleepers"]),
        "\n" + block(st["tables"]["goals"]),
        "\n## The earlier settings\n\n",
        "Liars of every kind at once (uniform, on 1–3 topics, sleepers), decisions with colluding liars "
        "(CF@x: on each topic a random x of the NPCs give the same wrong answer), sleeper detection with one "
        "sleeper, and transfer to topics never written; 30% of rounds verified. The tuning grid "
        "(section 0) is the baselines' forgetting and Σ-Mem's decay × γ (with the game's ρ).\n\n",
        block(printed["tuning"]),
        "\n" + block(printed["theorem1"]),
        "\n" + block(printed["identification"]),
        "\n" + block(printed["decisions"]),
        "\n" + block(printed["sleepers"]),
        "\n" + block(printed["transfer"]),
        "\n" + block(printed["goals"]),
        "\n## Where Σ-Mem loses\n\nEvery goal above that is lost or missed:\n\n",
        losses(goal_rows),
        "\nPooling is a trade: it is why Σ-Mem wins where honesty carries across topics, and it costs "
        "where lying is topic-specific. A liar on a few topics is pulled below the honest NPCs on the "
        "topics where it tells the truth (section 2b). Votes where colluders are drawn per topic (section "
        "3) lost 3–4 points to the per-(NPC, topic) beta with pooled scores, so the game's M-Vote reads "
        "the topic's own evidence (`SigmaMem.topic_scores`, the same numbers a memory without the shared "
        "dimension gives). The same trade shows on topics never written (section 5a): where liars follow "
        "topic families, the pooled credibility of an unseen topic ranks them worse than the same memory "
        "without pooling did, while votes on them (5b), which read the topic's own evidence, do not lose. "
        "`SigmaMem.for_world(..., shared=0)` keeps declared topics fully apart.\n",
    ]
    return "".join(parts)
