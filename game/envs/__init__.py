"""Parley worlds as environments of other frameworks: the AEC core, Gymnasium, PettingZoo (AEC and
parallel) and TextArena (Parley worlds as TextArena envs, Parley negotiators as TextArena agents)."""
