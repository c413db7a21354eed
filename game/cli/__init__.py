"""The ``parley`` command line: argument parsing, the plain console and one module per command
group. Builds games through ``game.play``."""

from game.cli.main import main

__all__ = ["main"]
