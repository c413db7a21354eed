"""The agents-backed defaults the composition layer injects into the engine layer.

This module belongs to the composition root (``game.play``): it may import ``agents`` and
``memory``; the engine layer may not (see ``game.core.protocols`` and the import-linter contracts
in pyproject.toml). ``Game``, ``replay``, the AEC env and ``game.testing.standard_engine`` pass
these to ``Engine``; nothing falls back to them (an engine without them raises ``NotInjected``).
"""

from __future__ import annotations

from typing import Any

from game.core.protocols import AgentKinds


def agent_kinds() -> AgentKinds:
    """The registered agent kinds and their parameter models (``agents.registry``)."""
    import agents.registry

    return agents.registry


def scripted_voice(engine: Any, npc: str) -> Any:
    """The world's scripted voice for ``npc`` (``agents.npc.ScriptedNPC``), drawing from the game
    seed's child ``npc, <npc>, voice``, trading through the negotiator its params name."""
    from agents.npc import ScriptedNPC

    spec = engine.spec
    params = spec.npcs[npc].agent.params
    return ScriptedNPC(
        npc,
        spec,
        engine.seed,
        negotiator=params.get("negotiator", "linear"),
        negotiator_params=params.get("negotiator_params"),
    )


def rule_negotiator(scene: Any, party: str, utility: Any, params: dict[str, Any]) -> Any:
    """The NPC's rule-based negotiator (``params["negotiator"]``: any kind in ``agents.negotiators.KINDS``)."""
    from agents.negotiators import from_kind

    kind = params.get("negotiator", "linear")
    return from_kind(kind, utility, **(params.get("negotiator_params") or {}))


def council_debate(engine: Any, scene_id: str) -> Any:
    """The scripted debate of a council scene (``game.play.council_debate.SceneDebate``), over the
    log kept in the scene's state."""
    from game.play.council_debate import SceneDebate

    st = engine.state.scenes.get(scene_id) or {}
    names = {p.id: engine.name(p.id) for p in engine.spec.scenes[scene_id].participants}

    def keep(log: list[Any]) -> None:  # the debate's first step: its log joins the scene's state
        engine.state.scenes.setdefault(scene_id, st)["debate"] = log

    return SceneDebate(engine.spec, scene_id, engine.seed, st.get("debate"), names=names, keep=keep)


def engine_defaults() -> dict[str, Any]:
    """The keyword arguments that give an ``Engine`` the standard voices, negotiators and debates."""
    return {"voice_factory": scripted_voice, "default_negotiator": rule_negotiator, "debate_factory": council_debate}
