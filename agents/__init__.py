"""Who acts: the Agent protocol, a registry of agent kinds, and built-in agents.

Submodules load on first use; importing ``agents`` is cheap.
"""
