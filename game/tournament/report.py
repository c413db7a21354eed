"""``report.html`` (self-contained: inline CSS, plots as base64 PNG) and ``summary.md`` for a
tournament directory holding ``results.jsonl`` (required), ``scenarios.json`` and
``tournament.json`` (both optional)."""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from game.core.errors import InputError
from game.core.files import write_atomic
from game.tournament import DEFAULT_MAX_MATCHES
from game.tournament.kinds import KINDS
from game.tournament.llm_usage import usage_table
from game.tournament.report_items import Figure, Report, ReportInput, Table, fmt_estimate, fmt_number, fmt_p
from game.tournament.summary import TournamentSummary

__all__ = ["Figure", "Report", "Table", "build_report", "render_html", "render_markdown", "write_report"]

RESULTS, SCENARIOS, CONFIG = "results.jsonl", "scenarios.json", "tournament.json"
REPORT_HTML, SUMMARY_MD = "report.html", "summary.md"


# --- loading -------------------------------------------------------------------------


def _load_json(path: Path, what: str) -> Any:
    """The JSON in ``path`` (None when it is missing), read through the safe loader: anything but a
    regular file of bounded size is an ``InputError`` naming it."""
    from game.core.files import MAX_FILE_BYTES, read_text, stat_of

    if stat_of(path)[1] == "missing":
        return None
    text = read_text(path, limit=4 * MAX_FILE_BYTES, hint=f"the tournament writes {path.name}; rerun it")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(
            f"{path}:{e.lineno}:{e.colno}: {what} is not valid JSON: {e.msg}",
            hint=f"the tournament writes {path.name}; rerun it or fix the file",
        ) from None
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise InputError(f"{path}: {what} cannot be read: {str(e)[:120]}") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read {what}: {e.strerror or e}") from None


def _competitor_names(config: dict) -> list[str]:
    comps = config.get("competitors")
    if isinstance(comps, dict):
        return [str(k) for k in comps]
    names = []
    if isinstance(comps, list):
        for c in comps:
            if isinstance(c, str):
                names.append(c)
            elif isinstance(c, dict):
                n = c.get("name", c.get("id"))
                if n is not None:
                    names.append(str(n))
    return names


# --- formatting ----------------------------------------------------------------------------


def _sig_next(r) -> str:
    if r.differs_from_next is None:
        return "—" if r.p_next is None else "n/a"
    return f"{'yes' if r.differs_from_next else 'no'} (p={fmt_p(r.p_next)})"


# --- building ------------------------------------------------------------------------------


def _title_and_facts(s: TournamentSummary, config: dict) -> tuple[str, list[tuple[str, str]]]:
    """The report's title and its facts list (name, kind, counts, competitors, bootstrap)."""
    name = config.get("name")
    kind = config.get("kind") or ", ".join(s.kinds)
    configured = _competitor_names(config)
    title = f"Tournament report: {name}" if name else "Tournament report"
    facts = [
        ("name", str(name) if name else "—"),
        ("kind", str(kind)),
        ("matches", str(s.matches)),
        ("rated games", str(s.rated_games)),
        ("competitors", f"{len(configured or s.competitors)}: " + ", ".join(configured or s.competitors)),
        (
            "bootstrap",
            (
                f"{s.n_boot} resamples, seed {s.seed}; significance: Wilcoxon "
                f"signed-rank, Holm-corrected, alpha {s.alpha}"
            ),
        ),
    ]
    return title, facts


def _ranking_table(s: TournamentSummary) -> Table:
    return Table(
        "Ranking",
        [
            "rank",
            "competitor",
            "mu",
            "sigma",
            "ordinal",
            "mean points [95% CI]",
            "games",
            "matches",
            "differs significantly from next",
        ],
        [
            [
                str(r.rank),
                r.competitor,
                fmt_number(r.mu, 2),
                fmt_number(r.sigma, 2),
                fmt_number(r.ordinal, 2),
                fmt_estimate(r.points),
                str(r.games),
                str(r.matches),
                _sig_next(r),
            ]
            for r in s.ranking
        ],
        "Ranked by the openskill (Plackett-Luce) ordinal mu − 3σ. 'games' are rated games; "
        "'matches' include self-play. 'differs significantly from next': the paired test "
        "against the competitor one rank below, significant and in the ranking's direction "
        "(Holm-adjusted p; n/a = they never met).",
    )


def _metrics_table(s: TournamentSummary) -> Table:
    from game.tournament.stats import metric_labels

    present = [(k, lab) for k, lab in metric_labels() if any(k in s.metrics[c] for c in s.competitors)]
    return Table(
        "Per-competitor metrics",
        ["competitor"] + [lab for _, lab in present],
        [[c] + [fmt_estimate(s.metrics[c].get(k)) for k, _ in present] for c in s.competitors],
        "Means over each competitor's matches with bootstrap 95% CIs. LLM calls, tokens, "
        "seconds and cost are per match and the competitor's own (blank for a rule-based one); "
        "in results written before seats carried their own, a negotiation's count both seats.",
    )


def _pairwise_table(s: TournamentSummary) -> Table:
    return Table(
        "Pairwise comparisons",
        ["A", "B", "shared games", "mean points A − B", "A wins-losses-ties", "p", "p (Holm)", "significant"],
        [
            [
                p.a,
                p.b,
                str(p.n),
                f"{p.mean_diff:+.3f}",
                f"{p.wins}-{p.losses}-{p.ties}",
                fmt_p(p.p_value),
                fmt_p(p.p_holm),
                "yes" if p.significant else "no",
            ]
            for p in s.pairwise
        ],
        "Paired by game (the groups both played). Two-sided Wilcoxon signed-rank test on "
        "the differences; Holm correction over all pairs.",
    )


def _can_plot(rep: Report, plots: bool) -> bool:
    """Whether the report gets plots; when not, a note says why."""
    if not plots:
        rep.notes.append("plots were turned off")
        return False
    from game.tournament import report_plots

    if not report_plots.available():
        rep.notes.append("matplotlib is not installed: the report has no plots (pip install matplotlib)")
        return False
    return True


def _figure_maker(rep: Report, plotting: bool) -> Callable[..., None]:
    """``figure(section, title, caption, make, *args)``: append ``make(*args)`` as a figure to
    ``section``; a figure that fails becomes a note instead. Does nothing without plots."""

    def figure(section: list, title: str, caption: str, make, *args) -> None:
        if not plotting:
            return
        try:
            section.append(Figure(title, caption, make(*args)))
        except Exception as e:  # noqa: BLE001 - a figure must not cost the whole report
            rep.notes.append(f"figure {title!r} failed: {type(e).__name__}: {str(e)[:120]}")

    return figure


def _summary_figures(rep: Report, s: TournamentSummary, figure: Callable[..., None]) -> None:
    """The ranking plot (in the Ranking section) and the pairwise heatmap (in the Pairwise one)."""
    from game.tournament import report_plots as rp

    figure(
        rep.sections[0][1],
        "Ranking plot",
        "Left: rating mu with mu ± 3σ; the red tick is the ordinal "
        "that ranks. Right: mean points with bootstrap 95% CI; green when the competitor "
        "differs significantly from the next one.",
        rp.ranking_plot,
        s,
    )
    figure(
        rep.sections[2][1],
        "Pairwise heatmap",
        "Mean points of the row competitor minus the "
        "column competitor over the games they shared; * = significant after Holm; blank = "
        "never met.",
        rp.pairwise_heatmap,
        s,
    )


def _kind_sections(
    rep: Report,
    rows,
    s: TournamentSummary,
    scenarios: dict | None,
    config: dict,
    plotting: bool,
    figure: Callable[..., None],
) -> None:
    """Each kind present in ``rows`` adds its own sections, in registry order."""
    by_kind: dict[str, list[dict]] = {}
    for r in rows:
        by_kind.setdefault(r["kind"], []).append(r)
    for kind_name, plugin in KINDS.items():
        if kind_name in by_kind:
            plugin.report(rep, ReportInput(by_kind[kind_name], s, scenarios or {}, config, plotting, figure))


def build_report(
    rows, scenarios: dict | None, config: dict | None, *, seed: int = 0, n_boot: int = 1000, plots: bool = True
) -> tuple[Report, Any]:
    """The report's content (tables, figures, notes) and the summary it is built on."""
    from game.tournament.stats import summarise

    s = summarise(rows, seed=seed, n_boot=n_boot)
    config = config if isinstance(config, dict) else {}
    title, facts = _title_and_facts(s, config)
    rep = Report(title, facts, notes=list(s.notes))
    rep.sections.append(("Ranking", [_ranking_table(s)]))
    llm = usage_table(rows)
    rep.sections.append(("Metrics", [_metrics_table(s)] + ([llm] if llm is not None else [])))
    rep.sections.append(("Pairwise", [_pairwise_table(s)]))
    plotting = _can_plot(rep, plots)
    figure = _figure_maker(rep, plotting)
    if plotting:
        _summary_figures(rep, s, figure)
    _kind_sections(rep, rows, s, scenarios, config, plotting, figure)
    return rep, s


# --- rendering -------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:1100px;
color:#222;line-height:1.4;padding:0 1em}
h1{font-size:1.6em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:1em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}
th{background:#f3f3f3}tr:nth-child(even) td{background:#fafafa}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}
dl.facts dt{font-weight:600}dl.facts dd{margin:0}
figure{margin:1.5em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption,.caption{color:#555;font-size:.85em;max-width:60em}
.notes li{color:#7a4b00}
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _html_table(t: Table) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in t.headers)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in t.rows)
    cap = f'<p class="caption">{_e(t.caption)}</p>' if t.caption else ""
    return f"<h3>{_e(t.title)}</h3>\n<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>\n{cap}"


def render_html(rep: Report) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(rep.title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{_e(rep.title)}</h1>",
        '<dl class="facts">',
    ]
    parts += [f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in rep.facts]
    parts.append("</dl>")
    if rep.notes:
        parts.append('<h2>Notes</h2><ul class="notes">' + "".join(f"<li>{_e(n)}</li>" for n in rep.notes) + "</ul>")
    for name, items in rep.sections:
        parts.append(f"<h2>{_e(name)}</h2>")
        for item in items:
            if isinstance(item, Table):
                parts.append(_html_table(item))
            elif isinstance(item, Figure):
                parts.append(
                    f'<figure><img alt="{_e(item.title)}" src="data:image/png;base64,{item.png}">'
                    f"<figcaption><b>{_e(item.title)}.</b> {_e(item.caption)}</figcaption></figure>"
                )
            else:
                parts.append(f"<p>{_e(item)}</p>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _md(text: Any) -> str:
    """A markdown table cell: one line, pipes and HTML-ish characters escaped."""
    t = " ".join(str(text).split())
    for ch in ("\\", "|", "<", ">", "*", "_", "`", "[", "]"):
        t = t.replace(ch, "\\" + ch)
    return t or " "


def _md_table(t: Table) -> str:
    lines = [
        f"### {_md(t.title)}",
        "",
        "| " + " | ".join(_md(h) for h in t.headers) + " |",
        "|" + "|".join("---" for _ in t.headers) + "|",
    ]
    lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in t.rows]
    if t.caption:
        lines += ["", _md(t.caption)]
    return "\n".join(lines)


def render_markdown(rep: Report) -> str:
    out = [f"# {_md(rep.title)}", ""]
    out += [f"- **{_md(k)}**: {_md(v)}" for k, v in rep.facts]
    if rep.notes:
        out += ["", "## Notes", ""] + [f"- {_md(n)}" for n in rep.notes]
    for name, items in rep.sections:
        tables = [i for i in items if isinstance(i, Table)]
        if tables:
            out += ["", f"## {_md(name)}"]
            for t in tables:
                out += ["", _md_table(t)]
    figs = sum(isinstance(i, Figure) for _, items in rep.sections for i in items)
    if figs:
        out += ["", f"Plots ({figs}) are in {REPORT_HTML}."]
    return "\n".join(out) + "\n"


def write_report(
    dir: Path | str, *, seed: int = 0, n_boot: int = 1000, plots: bool = True, max_matches: int = DEFAULT_MAX_MATCHES
) -> tuple[Path, Path]:
    """Read ``dir``'s results (a file of at most ``results_limit(max_matches)`` bytes) and write
    ``report.html`` and ``summary.md`` there; returns their paths. Missing directory, missing or
    empty results -> :class:`InputError` with a hint."""
    from game.core.files import stat_of
    from game.tournament.results import results_limit
    from game.tournament.stats import read_results

    d = Path(dir)
    if not d.is_dir():
        raise InputError(
            f"{d}: no such tournament directory", hint="pass the folder the tournament wrote (it holds results.jsonl)"
        )
    results = d / RESULTS
    if stat_of(results)[1] == "missing":
        raise InputError(
            f"{results}: no results yet",
            hint="run the tournament first (`parley tournament run`); it appends one line per finished match",
        )
    rows = read_results(results, results_limit(max_matches))
    if not rows:
        raise InputError(
            f"{results}: no finished matches yet",
            hint="wait for the tournament to finish some matches, then report again",
        )
    scenarios = _load_json(d / SCENARIOS, "the scenario list")
    if scenarios is not None and not isinstance(scenarios, dict):
        raise InputError(
            f"{d / SCENARIOS}: expected a JSON object mapping scenario id to scenario",
            hint="the tournament writes this file; rerun it",
        )
    config = _load_json(d / CONFIG, "the tournament config")
    rep, _ = build_report(rows, scenarios, config, seed=seed, n_boot=n_boot, plots=plots)
    html_path, md_path = d / REPORT_HTML, d / SUMMARY_MD
    write_atomic(html_path, render_html(rep))
    write_atomic(md_path, render_markdown(rep))
    return html_path, md_path
