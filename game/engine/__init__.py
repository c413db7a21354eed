"""The rules of play: the turn loop (``loop.Engine``), one predicate per rule, what an actor may
observe, dialogue, scenes (trade, council), quests, the game state and the command parser
(text -> Command | Clarify | Unknown). Knows only ``game.core`` protocols: voices, negotiators and
debates are injected by the composition root (``game.play``)."""
