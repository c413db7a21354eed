"""The composition root: ``GameConfig`` -> ``Game`` (the one place that picks agents, memory, the
gate and the LLM), ``Game.submit(text) -> Reply``, headless episodes (``play_episode``), saves,
autosaves and transcripts. Front ends build games only through here."""
