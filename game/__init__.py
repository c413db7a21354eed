"""Parley: turn-based text games played by LLM agents and people.

Importing ``game`` is cheap: submodules load on first use.
"""

__version__ = "0.1.0"
