"""``parley debate``: a council debate with masked working memory, headless, from a world's council
scene or a generated hidden-profile task."""

from __future__ import annotations

import json
from argparse import Namespace
from typing import Any

from game.cli.flags import from_flags
from game.core.errors import InputError

COUNCIL_FLAGS = {"max_rounds": "--rounds", "seed": "--seed", "speaker_policy": "--speakers", "chair": "--chair"}
MASKING_FLAGS = {"budget": "--budget", "mode": "--masking"}


def _task(args: Namespace) -> Any:
    if args.world is None or args.world.startswith("hidden-profile"):
        from game.council.tasks import hidden_profile_task

        return hidden_profile_task(args.task_seed)
    if args.task_seed is not None and args.task_seed != 0:
        raise InputError(
            "--task-seed picks a generated task; it does not apply to a world's scene",
            hint="parley debate --task-seed N  (no world), or parley debate WORLD --scene ID",
        )
    from game.play.worlds import load_world
    from game.world.council_tasks import task_from_scene

    return task_from_scene(load_world(args.world).spec, args.scene)


def _members(args: Namespace, task: Any) -> tuple[Any, Any]:
    """(debaters, masking config): LLM members when --llm is given, else scripted ones."""
    from game.cli.commands import llm_client
    from game.council.context import MaskingConfig, SubjectiveMaskingConfig

    client = llm_client(args, args.seed)
    if args.masking == "subjective":
        if client is None:
            raise InputError("--masking subjective needs LLM members", hint="add --llm URL (and --model NAME)")
        masking: Any = from_flags(SubjectiveMaskingConfig, MASKING_FLAGS, budget=args.budget)
    else:
        masking = from_flags(MaskingConfig, MASKING_FLAGS, mode=args.masking, budget=args.budget)
    if client is None:
        return None, masking
    from game.council.llm import llm_council

    return llm_council(task, client), masking


def _stop_on_outage(debaters: Any, rounds: int) -> None:
    """An LLM endpoint that failed for good during the debate is an error (exit 1), as in a game:
    the members went on with their scripted fallbacks, so the outcome is not the LLM's."""
    clients = {id(d.client): d.client for d in (debaters or {}).values() if getattr(d, "client", None) is not None}
    client = next(iter(clients.values()), None)
    outage = getattr(client, "outage", None)
    if outage is None:
        return
    client.outage = None
    raise type(outage)(
        f"{outage.message} (round {rounds}; the LLM members finished the debate with their scripted fallbacks)",
        hint=outage.hint,
    )


def cmd_debate(args: Namespace) -> int:
    from game.council.session import CouncilConfig
    from game.play.debates import run_debate

    if args.plot:  # before the debate, not after it
        from game.core.extras import require

        require("tournament", "parley debate --plot", ("matplotlib",))
        from game.cli.plots import plot_format

        plot_format(args.plot)  # a plot that could not be written is refused before the debate
    cfg = from_flags(
        CouncilConfig,
        COUNCIL_FLAGS,
        max_rounds=args.rounds,
        seed=args.seed,
        speaker_policy=args.speakers,
        chair=args.chair,
    )
    task = _task(args)
    debaters, masking = _members(args, task)

    def said(st: Any, view: Any) -> None:
        if not args.quiet and not args.json:
            print(f"[{st.round}] {st.speaker}: {st.text}")

    session, m = run_debate(task, cfg, masking, debaters, on_statement=said)
    assert m is not None
    _stop_on_outage(debaters, m.rounds)
    if args.plot:
        from game.cli.plots import plot_flow

        plot_flow(m.flow, args.plot, title=f"{task.id}: {args.masking} masking")
    if args.json:
        print(json.dumps({"task": task.id, "masking": args.masking, **m.to_dict()}, indent=2, default=str))
        return 0
    decided = "passes" if m.decision else "fails"
    right = "" if m.correct is None else (" (right)" if m.correct else " (wrong)")
    print(
        f"\nThe motion {decided}{right}: {m.yes_share:.0%} yes after {m.rounds} round(s) "
        f"({m.stop_reason or 'the last round'})."
    )
    print(
        f"redundancy {m.redundancy:.3f} (self {m.self_redundancy:.3f}), effective turns {m.effective_ratio:.0%}, "
        f"{m.tokens_per_member_round:.0f} context tokens per member per round"
    )
    if args.plot:
        print(f"viewpoint flow written to {args.plot}")
    return 0
