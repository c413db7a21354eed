"""The floor every layer stands on: ids and value types (Observation, Action, Event, Claim, Decision,
TurnResult), the protocols agents and memory implement, errors, claim canonical forms, text
cleaning, the safe file reader and atomic writes, the seed tree, optional-extra checks and the
phrasing of actions as commands. Imports nothing from the rest of Parley."""
