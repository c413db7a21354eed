"""TextArena, both ways: Parley worlds and negotiations as registered TextArena envs (``worlds``);
Parley agents and negotiators as TextArena agents (``agents``, ``negotiation``, reading each
game's text with ``games``); simple baselines and adversaries (``baselines``)."""
