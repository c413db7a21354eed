"""Held-out test material for the consistency gate: the Sallowford world and a labelled stream over it."""
