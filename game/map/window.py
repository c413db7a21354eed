"""The live map (``parley play --map``): a window in its own process that follows the game.

The game writes a small JSON map state (``game.map.render.game_map_state``) to a file in a
temporary folder after every reply (``write_state``: written to a new name, then moved into
place, so the window never reads half a file); the window (``python -m game.map.window
FILE``) polls the file and redraws when it changes. The game never waits for the window:
closing the window changes nothing in the game, and the window closes itself when the game
ends (the file disappears) or its parent process is gone.

``map_follower(game)`` starts the window and returns the callable to give each reply to.
pygame is imported only in the window's process (and by ``map_unavailable`` to check it is
installed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from game.play.session import Game

from game.core.files import read_limited, write_atomic

STATE_FILE = "map.json"
ERROR_FILE = "map-error.txt"
NO_WINDOW = 3  # the window process's exit code when it cannot open a window
POLL_SECONDS = 0.25


# --- the state file ----------------------------------------------------------------------


def write_state(path: str | Path, state: dict[str, Any]) -> None:
    """Write a map state as JSON, atomically (``game.core.files.write_atomic``)."""
    write_atomic(path, json.dumps(state, ensure_ascii=False))


def read_state(path: str | Path) -> dict[str, Any] | None:
    """The map state in ``path``, or None when it is missing or not a map state."""
    raw, _ = read_limited(Path(path))  # a pipe, a device or a huge file is no map state
    try:
        data = json.loads(raw.decode("utf-8")) if raw is not None else None
    except (ValueError, RecursionError):
        return None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("rooms"), dict)
        or not isinstance(data.get("exits"), list)
        or not isinstance(data.get("npcs"), list)
        or not isinstance(data.get("items"), dict)
    ):
        return None
    return data


# --- the game's side -------------------------------------------------------------------


def map_unavailable() -> str | None:
    """Why no map window can be opened here (pygame missing, no display), or None."""
    import importlib.util

    if importlib.util.find_spec("pygame") is None:
        from game.core.extras import install_command

        return f"the map window needs the 'map' extra: {install_command('map')} (pygame is not installed)"
    if sys.platform.startswith("linux") or "bsd" in sys.platform:
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            return "no display (neither DISPLAY nor WAYLAND_DISPLAY is set)"
    if os.environ.get("SDL_VIDEODRIVER") in ("dummy", "offscreen"):
        return f"SDL_VIDEODRIVER is {os.environ['SDL_VIDEODRIVER']!r}, which shows no window"
    return None


class MapFollower:
    """Keeps the map state file up to date; call it with each reply (``follower(reply)``; after
    a load, ``follower(reply, game)`` with the new game). Never raises: a map that cannot be
    written or drawn is reported once through ``note`` and the game goes on."""

    def __init__(self, game: Game, note: Callable[[str], None], window: bool = True):
        self.game = game
        self.note = note
        self.folder = Path(tempfile.mkdtemp(prefix="parley-map-"))
        self.path = self.folder / STATE_FILE
        self.process: subprocess.Popen | None = None
        self.reported = False
        self.update()
        if window:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "game.map.window", str(self.path), str(os.getpid())],
                cwd=str(Path(__file__).resolve().parents[2]),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )

    def update(self) -> None:
        from game.map.render import game_map_state

        try:
            write_state(self.path, game_map_state(self.game))
        except Exception as e:  # the map is an extra: it never stops the game
            self._report(f"the map could not be updated ({type(e).__name__}: {e})")

    def __call__(self, reply: Any = None, game: Game | None = None) -> None:
        if game is not None:
            self.game = game
        self.update()
        if self.process is not None and not self.reported and self.process.poll() not in (None, 0):
            raw, _ = read_limited(self.folder / ERROR_FILE, limit=64 * 1024)
            why = raw.decode("utf-8", errors="replace").strip() if raw is not None else ""
            self._report(f"the map window could not open{': ' + why if why else ''}")

    def _report(self, text: str) -> None:
        if not self.reported:
            self.reported = True
            try:
                self.note(f"map: {text}; playing on without it")
            except Exception:
                pass

    def close(self) -> None:
        """Remove the state file (the window then closes itself) and the temporary folder."""
        for name in (STATE_FILE, ERROR_FILE):
            try:
                (self.folder / name).unlink()
            except OSError:
                pass
        try:
            self.folder.rmdir()
        except OSError:
            pass


def map_follower(game: Game, note: Callable[[str], None] | None = None, window: bool = True) -> Callable[..., None]:
    """A callable to give each reply to (``follower(reply)``, or ``follower(reply, new_game)``
    after a load) that keeps a live map window up to date. When no window can be opened (no
    display, no pygame) ``note`` says so and a callable that does nothing is returned."""

    def say(text: str) -> None:
        print(text, file=sys.stderr)

    note = note or say
    if window:
        why = map_unavailable()
        if why is not None:
            note(f"map: {why}; playing on without it")
            return _nothing
    return MapFollower(game, note, window=window)


def _nothing(reply: Any = None, game: Game | None = None) -> None:
    return None


# --- the window's side -----------------------------------------------------------------


def run_window(path: str | Path, parent: int | None = None) -> int:
    """Show the map in ``path`` in a window until it is closed, the file disappears or the
    parent process ends. Returns an exit code (``NO_WINDOW`` if no window could be opened)."""
    from game.map.render import draw, require_pygame

    path = Path(path)
    try:
        pg = require_pygame()
        pg.display.init()
        pg.font.init()
        state = read_state(path)
        if state is None:
            raise RuntimeError(f"no map state in {path}")
        picture = draw(state)
        screen = pg.display.set_mode(picture.get_size(), pg.RESIZABLE)
    except Exception as e:
        try:
            (path.parent / ERROR_FILE).write_text(f"{type(e).__name__}: {e}", encoding="utf-8")
        except OSError:
            pass
        return NO_WINDOW
    pg.display.set_caption(f"Parley map: {state.get('title', '')}")
    seen = _stamp(path)
    next_poll, dirty = time.monotonic() + POLL_SECONDS, True
    try:
        while True:
            for ev in pg.event.get():
                if ev.type == pg.QUIT:
                    return 0
                dirty = dirty or ev.type not in (pg.MOUSEMOTION, pg.MOUSEBUTTONDOWN, pg.MOUSEBUTTONUP)
            if time.monotonic() >= next_poll:
                next_poll = time.monotonic() + POLL_SECONDS
                stamp = _stamp(path)
                if stamp is None or (parent is not None and os.getppid() != parent):
                    return 0  # the game ended
                if stamp != seen:
                    seen = stamp
                    fresh = read_state(path)
                    if fresh is not None:
                        picture, dirty = draw(fresh), True
            if dirty:
                _show(pg, screen, picture)
                dirty = False
            time.sleep(0.05)
    finally:
        pg.quit()


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def _show(pg: Any, screen: Any, picture: Any) -> None:
    """The picture scaled to fit the window (keeping its shape), centred."""
    sw, sh = screen.get_size()
    pw, ph = picture.get_size()
    scale = min(sw / pw, sh / ph)
    shown = (
        picture
        if abs(scale - 1) < 1e-3
        else pg.transform.smoothscale(picture, (max(1, int(pw * scale)), max(1, int(ph * scale))))
    )
    screen.fill((30, 34, 46))
    screen.blit(shown, shown.get_rect(center=(sw // 2, sh // 2)))
    pg.display.flip()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m game.map.window STATE_FILE [PARENT_PID]", file=sys.stderr)
        return 2
    parent = int(args[1]) if len(args) > 1 and args[1].isdigit() else None
    return run_window(args[0], parent)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
