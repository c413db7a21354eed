"""Council debates, as pure scene maths: tasks, the coordinator, what a member may see, scripted
debaters and the debate's metrics. Imports only ``game.core``; the masker (memory's) and the LLM
client are injected.

* ``tasks``    -- :class:`CouncilTask`, :class:`Evidence`, :class:`MemberSpec` and the seeded
  hidden-profile generator ``hidden_profile_task`` / ``hidden_profile_tasks``;
* ``hidden_profile`` -- a second generator after Stasser and Titus (1985): choices among three or
  four options whose shared items favour one and pooled items another (wording in ``profile_texts``);
* ``session``  -- :class:`CouncilSession` (rounds, coordinator, consensus, stalemate, vote),
  :class:`CouncilConfig` and :class:`Statement`;
* ``context``  -- each member's working memory: the modes ``none``, ``window``, ``dedupe``, ``memo``,
  ``objective``, ``subjective`` under one token budget (:class:`MaskingConfig`), the
  :class:`Context` a member sees and the ``ContextBuilder`` protocol (``memory.debate_masking.Masker``);
* ``debaters`` -- the :class:`Debater` protocol, :class:`View` and :class:`ScriptedDebater`;
* ``llm``      -- debaters that speak through an injected LLM client;
* ``metrics``  -- :class:`DebateMetrics` and ``evaluate``;
* ``runner``   -- ``view_for`` and the scripted council.

Elsewhere: a whole debate is ``game.play.debates.run_debate``; the adventure's council scenes are
``game.engine.scenes_council``, their debate ``game.play.council_debate``; a world's council scene
becomes a task in ``game.world.council_tasks``; the flow plot is ``game.cli.plots.plot_flow``.
"""
