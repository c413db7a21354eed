"""What users' tests can import, as the project's own tests do (PettingZoo ships ``api_test`` the
same way):

* ``check_world(path)`` -- every problem in a world folder (empty when it is valid);
  ``assert_world_valid(path)`` fails a test with the located problems;
* ``play_script(world, script, seed)`` -- a game played from a command script (one command a
  line, ``#`` comments), and ``assert_script_wins`` for a walkthrough;
* ``assert_golden(text, path)`` -- a transcript pinned byte for byte in a golden file
  (``PARLEY_UPDATE_GOLDEN=1`` rewrites it after a deliberate change);
* ``standard_engine(world, seed)`` -- an ``Engine`` with the standard voices, negotiators and
  debates injected (the engine itself knows no agents);
* ``ScriptedServer`` -- a local OpenAI-compatible HTTP server that answers from a script, for
  fault injection (``game.testing.scripted_server``).

Names load on first use, so importing ``game.testing`` is cheap.
"""

from __future__ import annotations

from game.core.lazy import lazy_exports

_WHERE = {
    "check_world": "game.testing.worlds",
    "assert_world_valid": "game.testing.worlds",
    "play_script": "game.testing.worlds",
    "assert_script_wins": "game.testing.worlds",
    "standard_engine": "game.testing.worlds",
    "assert_golden": "game.testing.golden",
    "ScriptedServer": "game.testing.scripted_server",
}
__all__ = sorted(_WHERE)


__getattr__, __dir__ = lazy_exports(__name__, _WHERE)
