"""Councils: the adventure's council scenes, and the standalone debate engine with masked memory.

Import the submodules directly (this package imports none of them, so ``import game.council`` stays
cheap; the engine imports ``game.engine.scenes_council`` and nothing else of this package):

* ``scenes``   -- :class:`CouncilScenes`, the council half of the adventure's scene manager;
* ``tasks``    -- :class:`CouncilTask`, :class:`Evidence`, :class:`MemberSpec` and the seeded
  hidden-profile generator ``hidden_profile_task`` / ``hidden_profile_tasks``;
* ``session``  -- :class:`CouncilSession` (rounds, coordinator, consensus, stalemate, vote),
  :class:`CouncilConfig` and :class:`Statement`;
* ``masking``  -- each member's working memory: ``none``, ``window``, ``memo``, ``objective``
  under one token budget, plus the long-term summary (:class:`MaskingConfig`, :class:`Masker`);
* ``debaters`` -- the :class:`Debater` protocol, :class:`View` and :class:`ScriptedDebater`;
* ``metrics``  -- :class:`DebateMetrics`, ``evaluate`` and ``plot_flow``;
* ``runner``   -- ``run_debate``.
"""
