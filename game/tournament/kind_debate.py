"""The debate kind: competitors are council debate configurations, scenarios are debate tasks.

A competitor is the whole council: its members (``agent = "scripted"``, the scripted debaters of
``game.council.debaters``, or ``"llm"``, every member an LLM on the competitor's endpoint) and the
masking of their working memory (``masking``, a mode of ``game.council.context``; ``params`` are
that mode's ``MaskingConfig`` fields). A scenario is a set of generated hidden-profile tasks
(``generate = N, seed = S``: the tasks of seeds S .. S+N-1) or a world's council scene (``world``,
``scene``; ``game.world.council_tasks.task_from_scene``).

Each (task, seed, repetition) is one rated game: every competitor debates the same task with the
same council seed (``CouncilConfig`` defaults; ``turns`` sets ``max_rounds``) and the hash
embedder, and scores 1 when the council's decision is the task's right one, else 0. A world's
scene has no known right decision: its games score nobody (``points`` null), so they are neither
rated nor in the accuracy; their rounds, redundancy, effective turns and tokens still count in the
per-competitor means.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from game.core.errors import InputError, Problem
from game.tournament.kind_base import MatchContext, is_council_scene, world_scene
from game.tournament.llm_usage import match_totals, seat_usage
from game.tournament.model import (
    Competitor,
    GeneratedScenarios,
    ImportedScenarios,
    Match,
    Scenario,
    TournamentConfig,
    WorldScenario,
    derived_seed,
    endpoint,
)
from game.tournament.report_items import Report, ReportInput, Table, fmt_estimate
from game.tournament.summary import TournamentSummary

if TYPE_CHECKING:
    from game.council.context import MaskingConfig

AGENTS = ("scripted", "llm")
ROLE = "council"  # the one seat of a debate match: the competitor holds the whole council


# --- competitors -------------------------------------------------------------------------
class MaskingProblem(ValueError):
    """A competitor's masking mode or params are bad: ``problems`` are (the key at fault, what is wrong)."""

    def __init__(self, message: str, field: str = "masking", more: list[tuple[str, str]] | None = None):
        super().__init__(message)
        self.problems = [(field, message), *(more or [])]


def masking_config(c: Competitor) -> MaskingConfig:
    """The competitor's masking (``MaskingProblem`` naming the field when its mode or params are bad)."""
    from pydantic import ValidationError

    from game.core.errors import did_you_mean
    from game.council.context import LLM_MODES, MODES, MaskingConfig, SubjectiveMaskingConfig

    mode = c.masking or "memo"
    if mode not in (*MODES, *LLM_MODES):
        hint = did_you_mean(mode, [*MODES, *LLM_MODES])
        raise MaskingProblem(
            f"unknown masking mode {mode!r}"
            + (f" ({hint})" if hint else "")
            + f"; modes: {', '.join(MODES)}, and {', '.join(LLM_MODES)} for llm members"
        )
    if mode in LLM_MODES and c.agent != "llm":
        raise MaskingProblem(f'masking {mode!r} needs llm members (agent = "llm"): they label what they keep')
    if "mode" in c.params:
        raise MaskingProblem('give the mode as masking = "...", not in params', "params.mode")
    model = SubjectiveMaskingConfig if mode in LLM_MODES else MaskingConfig
    try:
        return model(mode=mode, **c.params)
    except ValidationError as e:
        fields = [f for f in model.model_fields if f != "mode"]

        def why(err: Any) -> str:
            if err["type"] != "extra_forbidden":
                return str(err["msg"]).removeprefix("Value error, ")
            hint = did_you_mean(str(err["loc"][-1]), fields)
            return "unknown masking parameter" + (f" ({hint})" if hint else "") + f"; fields: {', '.join(fields)}"

        found = [("params." + ".".join(str(p) for p in err["loc"]), why(err)) for err in e.errors()]
        raise MaskingProblem(found[0][1], found[0][0], found[1:]) from None


def competitor_problems(c: Competitor) -> list[tuple[str, str]]:
    """(the field at fault, what is wrong) for each problem of a debate competitor."""
    from game.core.errors import did_you_mean

    if c.agent not in AGENTS:
        hint = did_you_mean(c.agent, AGENTS)
        return [
            (
                "agent",
                f"unknown debate agent {c.agent!r}" + (f" ({hint})" if hint else "") + f"; agents: {', '.join(AGENTS)}",
            )
        ]
    if c.memory:
        return [("memory", "memory is for adventure and council competitors; debate members mask with masking")]
    if "embedder" in c.model_fields_set:
        return [("embedder", "debates use the hash embedder (as parley debate and the benchmark do)")]
    if c.llm is not None and c.agent != "llm":
        return [("llm", 'an endpoint is for agent = "llm"')]
    try:
        masking_config(c)
    except MaskingProblem as e:
        return e.problems
    return []


def config_problems(cfg: TournamentConfig, file: str) -> list[Problem]:
    """What does not fit a debate tournament: each problem names its competitor or scenario."""
    from game.council.session import MAX_ROUNDS

    out: list[Problem] = []
    if cfg.turns is not None and cfg.turns > MAX_ROUNDS:
        out.append(Problem(f"a debate has at most {MAX_ROUNDS} rounds", file=file, path="turns"))
    for n, c in enumerate(cfg.competitors):
        out += [
            Problem(f"competitor {c.name!r}: {why}", file=file, path=f"competitors[{n}].{field}")
            for field, why in competitor_problems(c)
        ]
    for n, s in enumerate(cfg.scenarios):
        why = None
        if isinstance(s, ImportedScenarios):
            why = (
                "debate scenarios are generated hidden-profile tasks (generate = N) or a world's council scene "
                "(world, scene); imported sets are negotiation scenes"
            )
        elif isinstance(s, GeneratedScenarios):
            why = "deadline is for negotiation scenes" if "deadline" in s.model_fields_set else None
        elif not s.scene:
            why = "a debate scenario from a world needs scene (a council scene's id)"
        if why:
            out.append(Problem(why, file=file, path=f"scenarios[{n}]"))
    return out


def effective(c: Competitor) -> dict[str, Any]:
    """What decides how the competitor debates, defaults included (a changed default changes the
    match ids, so ``--resume`` never mixes the two)."""
    return {"masking": masking_config(c).model_dump(mode="json")}


# --- scenarios ---------------------------------------------------------------------------
def generated(count: int, seed: int) -> dict[str, dict[str, Any]]:
    """Scenario id -> entry for the hidden-profile tasks of seeds ``seed`` .. ``seed + count - 1``."""
    from game.council.tasks import hidden_profile_task

    out = {}
    for k in range(seed, seed + count):
        task = hidden_profile_task(k)
        out[task.id] = entry(task)
    return out


def from_scene(spec: Any, scene_id: str) -> dict[str, Any]:
    from game.world.council_tasks import task_from_scene

    return entry(task_from_scene(spec, scene_id))


def entry(task: Any) -> dict[str, Any]:
    return {"task": task.model_dump(mode="json"), "truth": task.truth, "human": None}


# --- playing -----------------------------------------------------------------------------
def council_seed(m: Match) -> int:
    """The same for every competitor of the game (task, seed, repetition)."""
    return derived_seed(m.seed, m.rep) if m.rep else m.seed


def play(m: Match, ctx: MatchContext) -> dict[str, Any]:
    """One competitor's debate of the match's task: the row fields ``play_match`` adds to."""
    from game.council.session import CouncilConfig
    from game.council.tasks import CouncilTask
    from game.play.debates import run_debate
    from game.play.episode import _usage

    comp = ctx.comps[m.seats[ROLE]]
    task = CouncilTask.model_validate(ctx.scenarios[m.scenario]["task"])
    rounds = {"max_rounds": ctx.cfg.turns} if ctx.cfg.turns else {}
    council = CouncilConfig(seed=council_seed(m), **rounds)
    client = debaters = None
    if comp.agent == "llm":
        from game.council.llm import llm_council

        client = ctx.client(comp, derived_seed(m.seed, m.rep, m.scenario, ROLE))
        debaters = llm_council(task, client)
    try:
        session, met = run_debate(task, council, masking_config(comp), debaters)
    finally:
        if client is not None:
            client.close()
    if client is not None and client.outage is not None:
        raise client.outage
    assert met is not None
    used = _usage(client)
    invalid = sum(len(d.invalid) for d in (debaters or {}).values())
    seat = {
        "role": ROLE,
        "competitor": comp.name,
        "points": None if met.correct is None else float(met.correct),
        "utility": None,
        "reservation": None,
        "advantage": None,
        "won": None,
        "score": None,
        "invalid": invalid,
        "false_leads": None,
        "correct": met.correct,
        "redundancy": round(met.redundancy, 6),
        "effective_ratio": round(met.effective_ratio, 6),
        "tokens_per_member_round": round(met.tokens_per_member_round, 6),
        "recall": None if met.recall is None else round(met.recall, 6),
    }
    if client is not None:  # the LLM council's own calls, tokens, seconds, repairs and cost
        seat.update(seat_usage(used["llm_usage"], comp.llm.usd_per_1k_tokens if comp.llm else 0.0))
    outcome = {
        "decision": met.decision,
        "yes_share": round(met.yes_share, 6),
        "stop_reason": met.stop_reason,
        "statements": met.statements,
    }
    return {
        "status": session.status,
        "agreement": None,
        "outcome": outcome,
        "rounds": int(met.rounds),
        "seats": [seat],
        "welfare": None,
        "pareto_distance": None,
        "nash_distance": None,
        "ks_distance": None,
        **match_totals([seat]),
    }


# --- the report ----------------------------------------------------------------------------
COLUMNS = (
    "competitor",
    "members",
    "masking",
    "accuracy [95% CI]",
    "mean rounds",
    "redundancy",
    "effective-turn ratio",
    "tokens / member-round",
    "scored games",
)


def report_section(s: TournamentSummary, config: dict[str, Any]) -> tuple[str, list[Any]]:
    """The report's "Debate" section for a ``TournamentSummary`` (``config``: tournament.json's)."""
    caption = (
        "Per competitor (ranking order), over its debates: accuracy is the share of decisions that were "
        "right, on tasks with a known right decision (scored games), with a bootstrap 95% CI; mean rounds "
        "before the vote, redundancy (mean cosine of each statement to the earlier ones, hash embedder), "
        "effective-turn ratio (the share of members' statements that bring something: a first mention of "
        "evidence, a first rebuttal, a moved stance) and context tokens a member reads per turn are over all "
        "its debates, scored or not, with bootstrap 95% CIs."
    )
    return "Debate", [Table("Council debates", list(COLUMNS), table_rows(s, config), caption)]


def table_rows(s: TournamentSummary, config: dict[str, Any]) -> list[list[str]]:
    """One row per competitor (ranking order) of the debate table, from a ``TournamentSummary``."""
    inner = config.get("config")  # tournament.json holds the config under "config"
    config = inner if isinstance(inner, dict) else config
    comps = {c.get("name"): c for c in config.get("competitors") or [] if isinstance(c, dict)}
    out = []
    for name in s.competitors:
        c = comps.get(name, {})
        mode = c.get("masking") or ("memo" if c else "?")
        params = c.get("params") or {}
        mode += "".join(f", {k}={v}" for k, v in sorted(params.items())) if isinstance(params, dict) else ""
        met = s.metrics[name]
        acc = met.get("accuracy")
        out.append(
            [
                name,
                str(c.get("agent", "?")),
                mode,
                fmt_estimate(acc),
                fmt_estimate(met.get("rounds"), 2),
                fmt_estimate(met.get("redundancy")),
                fmt_estimate(met.get("effective_ratio")),
                fmt_estimate(met.get("tokens_per_member_round"), 1),
                str(acc.n if acc else 0),
            ]
        )
    return out


def unscored_note(n: int) -> str:
    return (
        f"{n} debate game{'s' if n != 1 else ''} on tasks with no known right decision (world council "
        "scenes): not rated and not in the accuracy; their rounds, redundancy, effective turns and tokens "
        "are in the means"
    )


# --- the kind ----------------------------------------------------------------------------
class DebateKind:
    name = "debate"
    quick_matches = True
    one_match_games = False
    unscored_games = True
    metrics: tuple[tuple[str, str], ...] = ()  # accuracy, redundancy, ... are stats.METRICS

    def config_problems(self, cfg: TournamentConfig, file: str) -> list[Problem]:
        return config_problems(cfg, file)

    def scenarios(self, cfg: TournamentConfig, source: Scenario, base: Path, where: str) -> dict[str, dict[str, Any]]:
        """Scenario id -> {"task": a CouncilTask as a dict, "truth", "human": None} (and a world scene's
        "world" path and "scene_id")."""
        if isinstance(source, GeneratedScenarios):
            return generated(source.generate, source.seed)
        if not isinstance(source, WorldScenario):  # config_problems says so too
            raise InputError(f"{where}: debate scenarios are generated tasks or a world's council scene")
        path, world, _, sid = world_scene(source, base, where, "council", is_council_scene)
        return {sid: {**from_scene(world.spec, source.scene), "world": path, "scene_id": source.scene}}

    def effective(self, c: Competitor) -> dict[str, Any] | None:
        """The masking, defaults included, and llm members' endpoint and model."""
        out = effective(c)
        return {**out, **endpoint(c)} if c.agent == "llm" or c.llm is not None else out

    def game_factors(self, cfg: TournamentConfig) -> list[tuple[int, str, str]]:
        """Games per scenario, as ``seatings`` makes them: one per competitor."""
        return [(len(cfg.competitors), "competitor", "competitors")]

    def seatings(
        self, cfg: TournamentConfig, sid: str, scenario: dict[str, Any]
    ) -> Iterator[tuple[dict[str, str], str | None]]:
        for c in cfg.competitors:
            yield {ROLE: c.name}, None

    def play(self, m: Match, ctx: MatchContext) -> dict[str, Any]:
        return play(m, ctx)

    def observe(self, row: dict[str, Any], seats: list[dict[str, Any]]) -> dict[str, float]:
        return {}  # accuracy and the debate's metrics come from the seats

    def unscored_note(self, n: int) -> str:
        return unscored_note(n)

    def report(self, rep: Report, data: ReportInput) -> None:
        """The "Debate" section, right after the ranking."""
        rep.sections.insert(1, report_section(data.summary, data.config))


DEBATE = DebateKind()
