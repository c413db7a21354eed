"""What the LLM competitors used: per seat of a match, and per competitor over a tournament.

A seat held by an LLM competitor carries its own figures (``SEAT_FIELDS``): ``llm_calls``,
``llm_tokens`` (prompt + completion, also given apart), ``llm_seconds`` (time spent waiting for the
model, retries included: ``agents.llm.usage.Usage.latency_ms``) and ``llm_repairs`` (replies that
failed validation and were sent back to be repaired: ``Usage.invalid``). A rule-based seat carries
none, so tables leave it blank. The row keeps the match's totals (``llm_calls``, ``llm_tokens``,
``llm_seconds``, ``cost``); rows written before seats had their own figures have only those.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from game.tournament.report_items import Table, fmt_number

SEAT_FIELDS = (
    "llm_calls",
    "llm_tokens",
    "llm_prompt_tokens",
    "llm_completion_tokens",
    "llm_seconds",
    "llm_repairs",
    "cost",
)
METRIC_KEYS = ("llm_calls", "llm_tokens", "llm_seconds", "cost")  # the per-competitor means (stats.METRICS)


def seat_usage(per_agent: Mapping[str, Mapping[str, Any]], usd_per_1k_tokens: float = 0.0) -> dict[str, Any]:
    """A seat's figures from its client's usage per agent (``game.play.episode._usage(client)["llm_usage"]``,
    ``EpisodeResult.llm_usage``), priced at ``usd_per_1k_tokens``."""
    prompt = sum(int(u.get("prompt_tokens", 0)) for u in per_agent.values())
    completion = sum(int(u.get("completion_tokens", 0)) for u in per_agent.values())
    return {
        "llm_calls": sum(int(u.get("calls", 0)) for u in per_agent.values()),
        "llm_tokens": prompt + completion,
        "llm_prompt_tokens": prompt,
        "llm_completion_tokens": completion,
        "llm_seconds": round(sum(float(u.get("latency_ms", 0.0)) for u in per_agent.values()) / 1000, 3),
        "llm_repairs": sum(int(u.get("invalid", 0)) for u in per_agent.values()),
        "cost": round((prompt + completion) / 1000 * usd_per_1k_tokens, 6),
    }


def match_totals(seats: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The row's totals over its seats' own figures (zeros when no seat used an LLM)."""
    seats = list(seats)
    return {
        "llm_calls": sum(int(s.get("llm_calls") or 0) for s in seats),
        "llm_tokens": sum(int(s.get("llm_tokens") or 0) for s in seats),
        "llm_seconds": round(sum(float(s.get("llm_seconds") or 0.0) for s in seats), 3),
        "cost": round(sum(float(s.get("cost") or 0.0) for s in seats), 6),
    }


def per_seat(row: Mapping[str, Any]) -> bool:
    """Whether the row gives its LLM seats' own figures."""
    return any(s.get("llm_calls") is not None for s in row["seats"])


def competitor_figures(row: Mapping[str, Any], seats: list[Mapping[str, Any]]) -> dict[str, float | None]:
    """One competitor's LLM figures in one match (``seats``: its seats of ``row``): its seats' own when
    the row has them (none: a rule-based competitor, left blank); else, in a row written before seats
    had them, the match's totals when an LLM was called at all."""
    if per_seat(row):
        out: dict[str, float | None] = {}
        for key in METRIC_KEYS:
            own = [float(s[key]) for s in seats if s.get("llm_calls") is not None and s.get(key) is not None]
            out[key] = sum(own) if own else None
        return out
    if not row.get("llm_calls"):
        return {}
    return {key: None if row.get(key) is None else float(row[key]) for key in METRIC_KEYS}


@dataclass
class CompetitorUsage:
    """An LLM competitor's totals over the matches it played."""

    competitor: str
    matches: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    repairs: int = 0
    invalid: int = 0  # invalid (fallback) moves in its seats

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def usage_by_competitor(rows: Iterable[Mapping[str, Any]]) -> list[CompetitorUsage]:
    """Every competitor whose seats carry their own LLM figures, in first-seen order."""
    out: dict[str, CompetitorUsage] = {}
    for row in rows:
        seen: set[str] = set()
        for s in row["seats"]:
            if s.get("llm_calls") is None:
                continue
            u = out.setdefault(s["competitor"], CompetitorUsage(s["competitor"]))
            u.matches += s["competitor"] not in seen
            seen.add(s["competitor"])
            u.calls += int(s["llm_calls"])
            u.prompt_tokens += int(s.get("llm_prompt_tokens") or 0)
            u.completion_tokens += int(s.get("llm_completion_tokens") or 0)
            u.seconds += float(s.get("llm_seconds") or 0.0)
            u.repairs += int(s.get("llm_repairs") or 0)
            u.invalid += int(s.get("invalid") or 0)
    return list(out.values())


HEADERS = [
    "competitor",
    "matches",
    "calls",
    "prompt tokens",
    "completion tokens",
    "tokens / match",
    "LLM seconds",
    "seconds / match",
    "seconds / call",
    "repairs",
    "invalid moves",
]


def usage_table(rows: Iterable[Mapping[str, Any]]) -> Table | None:
    """The report's "LLM usage" table (None when no seat used an LLM)."""
    used = usage_by_competitor(rows)
    if not used:
        return None
    body = []
    for u in used:
        n = max(1, u.matches)
        body.append(
            [
                u.competitor,
                str(u.matches),
                f"{u.calls:,}",
                f"{u.prompt_tokens:,}",
                f"{u.completion_tokens:,}",
                fmt_number(u.tokens / n, 1),
                fmt_number(u.seconds, 1),
                fmt_number(u.seconds / n, 2),
                fmt_number(u.seconds / u.calls if u.calls else None, 2),
                str(u.repairs),
                str(u.invalid),
            ]
        )
    return Table(
        "LLM usage",
        HEADERS,
        body,
        "Totals over each LLM competitor's matches. Tokens are what the endpoint reported (prompt + "
        "completion); LLM seconds are the time spent waiting for the model, retries included. Repairs: "
        "replies that failed validation and were sent back; invalid moves: moves that were still unusable "
        "(a rule-based fallback moved instead) or illegal. Rule-based competitors use no LLM.",
    )


def render_text(table: Table) -> str:
    """``table`` as aligned plain text (the CLI prints it)."""
    cells = [table.headers, *table.rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(table.headers))]
    lines = [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
        for r in cells
    ]
    return "\n".join([table.title, *lines])
