"""What a front end does with a player's game besides playing it: the one autosave per world
(kept apart from another game's; a watched game has its own slot), ``save NAME`` typed in the game (asking before overwriting a
save this session did not write), the farewell (summary, lessons, autosave) and the journal as
terminal-safe text; and what a front end does when a turn fails through a bug
(``report_failed_turn``: the traceback to a log file, the game as it was before the turn saved).
The console, the TUI and ``parley run`` share these."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

from game.core.errors import ParleyError
from game.core.text import clean, shown
from game.play.save_files import SAVE_FILE, read_save, remove, save_folder, saves_locked, slugify

WATCHED = "watch"  # the slot's prefix for a game a seat played (``parley watch``)


def autosave_name(game) -> str:
    """The slot an unfinished game is kept in when it stops. A person's game: ``autosave-<world>``
    (one per world, so playing another world never overwrites it). A game a seat played while
    someone watched: ``watch-<world>``, so watching never writes or moves a person's autosave."""
    return f"{'autosave' if is_persons(game) else WATCHED}-{game.spec.id}"


def is_persons(game) -> bool:
    """Whether a person holds the player's seat (``Game.player_kind`` is ``human``)."""
    return getattr(game, "player_kind", "human") == "human"


def keep_other_autosave(game, saves_base) -> str | None:
    """If ``autosave-<world>`` holds another game (not the one this game was loaded from), move it
    to ``autosave-<world>-previous`` (replacing an older one) so the autosave about to be written
    never silently replaces it. Returns the name it was kept under, or None. Call it with the
    saves folder locked (``write_autosave`` does), or a game stopping at the same moment finds
    the slot as it was before this one moved it."""
    name = autosave_name(game)
    folder = save_folder(name, saves_base)
    if not (folder / SAVE_FILE).is_file() or getattr(game, "loaded_from", None) == folder.resolve():
        return None
    for n in range(1, 1000):
        keep = f"{name}-previous" + (f"-{n}" if n > 1 else "")
        target = save_folder(keep, saves_base)
        if target.exists() and n == 1:
            try:
                remove(keep, saves_base)  # one older autosave is enough; its own files only
            except ParleyError:
                pass
        if not target.exists():
            os.replace(folder, target)
            return keep
    return None


def write_autosave(game, saves_base, name: str | None = None) -> tuple[Path, str | None]:
    """Autosave ``game`` (``autosave_name``): for a person's game, another game's autosave in the
    slot is kept first (``keep_other_autosave``); a watched game's slot holds the last watched game
    only. The check, the keeping and the write happen under the saves folder's lock
    (``saves_locked``), so two games that stop together keep both. Returns (the save's folder,
    the name another game was kept under or None). ``name``: another slot, written as it is."""
    with saves_locked(saves_base):
        kept = keep_other_autosave(game, saves_base) if is_persons(game) and name is None else None
        return game.save(name or autosave_name(game), saves_base), kept


def load_command(game, name: str, saves_base) -> str:
    """The command that plays the save ``name`` on as ``game`` was played: its LLM (the URL
    itself unless it holds a secret) and the saves folder it went to, so the line works as it stands."""
    llm = getattr(game, "llm", None)
    url = llm.config.public_dict()["base_url"] if llm else ""
    again = f" --llm {'URL' if '***' in url else url} --model {llm.config.model}" if llm else ""
    if saves_base is not None:
        again += f" --saves-dir {saves_base}"
    return f"parley play --load {name}{again}"


def report_failed_turn(error, saves_base, name: str | None = None) -> str:
    """A turn failed through a bug and was put back (``game.play.session.TurnError``): write its
    traceback to a log file under ``<saves>/logs/``, autosave the game as it was before the turn
    (``write_autosave``; ``name``: another slot) and return what to tell the person, in one
    message: that it is a bug in Parley, the turn and transcript line, the save and the log."""
    import time
    import traceback

    from game.play.save_files import saves_dir

    game, cause = error.game, error.error
    stamp = time.strftime("%Y%m%d-%H%M%S")
    lines = [f"{error.message}."]
    try:
        logs = saves_dir(saves_base) / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        log = logs / f"{slugify(game.spec.id)}-turn{error.turn}-{stamp}-{os.getpid()}.log"
        head = f"world {game.spec.id}, seed {game.seed}, turn {error.turn}, transcript line {error.line}\n"
        log.write_text(head + "".join(traceback.format_exception(cause)), encoding="utf-8")
        told = f"The traceback is in {log}" + ("; please report it." if error.bug else ".")
    except OSError as e:
        told = f"The traceback could not be written ({e.strerror or e}):\n" + "".join(traceback.format_exception(cause))
    if not error.restored:
        lines.append("Nothing was saved: the game is not as it was before the turn.")
    else:
        slot = name or autosave_name(game)
        try:
            folder, kept = write_autosave(game, saves_base, name)
            if is_persons(game) and name is None:
                game.loaded_from = folder.resolve()  # this game continues that save from now on
            if kept:
                lines.append(f"The autosave of another game was kept as {kept}.")
            lines.append(
                f"The game before that turn is saved in {folder}; continue with: {load_command(game, slot, saves_base)}"
            )
        except (ParleyError, OSError) as e:
            lines.append(f"Could not autosave: {getattr(e, 'message', None) or e}")
    error.told = shown("\n".join([*lines, told]))
    return error.told


def retire_autosave(game, saves_base) -> str | None:
    """A finished game that continued its world's autosave: that autosave (the game before its
    end) is removed under the saves folder's lock, so the next game does not offer to continue a
    game that is over. Returns its name, or None when the game continued none."""
    name = autosave_name(game)
    if not is_persons(game) or getattr(game, "loaded_from", None) is None:
        return None
    with saves_locked(saves_base):
        folder = save_folder(name, saves_base)
        if game.loaded_from != folder.resolve() or not (folder / SAVE_FILE).is_file():
            return None
        remove(name, saves_base)
    return name


def journal(game) -> str:
    """The player's journal as text (``Game.journal()``), escaped for a terminal: claims come
    from saves and LLMs, never raw control characters."""
    return shown(game.journal().text())


def _stamp_of(data: dict) -> tuple[str, str]:
    """What identifies a save (its state hash and transcript digest)."""
    return data["state_hash"], data["transcript"]


def _stamp(folder) -> tuple[str, str] | None:
    """The stamp of the save in ``folder``, or None when it does not read."""
    try:
        return _stamp_of(read_save(folder))
    except (ParleyError, OSError):
        return None


def save_as(game, name: str, saves_base, read, ours: dict) -> str:
    """``save NAME`` typed in the game: asks before overwriting a save this session did not
    write (anything but y/yes keeps it). Returns the line to show."""
    typed = " ".join(clean(name).split()).casefold()  # two names that share a folder are asked about
    try:
        slug = slugify(name)
        folder = save_folder(name, saves_base)  # a link out of the saves folder is refused before asking
        if (folder / SAVE_FILE).exists():
            try:
                data = read_save(folder)
                stamp, what = _stamp_of(data), shown(f"{data['world']['id']}, turn {data['turn']}")
            except (ParleyError, OSError):
                stamp, what = None, "it cannot be read"
            if ours.get(slug) != (typed, stamp):
                try:
                    answer = read(f"Overwrite save '{slug}' ({what})? [y/N] ")
                except EOFError:
                    answer = ""
                if answer.strip().lower() not in ("y", "yes"):
                    return f"Not saved; '{slug}' was left as it was."
        folder = game.save(name, saves_base)
        stamp = _stamp(folder)
        if stamp is not None:
            ours[slug] = (typed, stamp)
        return f"Saved to {shown(folder)}."
    except ParleyError as e:
        return f"Could not save: {e.render()}"
    except OSError as e:
        return f"Could not save: {shown(e.filename) + ': ' if e.filename else ''}{e.strerror or e}"


def farewell(game, saves_base, write) -> bool:
    """Summary line, and an autosave if the game is unfinished (also after a crash, Ctrl-C, or
    SIGTERM/SIGHUP: a closed terminal cannot be written to, and the save is made all the same).
    A SIGTERM or SIGHUP that comes while it runs (a terminal closed as input ended) waits until
    the autosave is written instead of cutting it short. False when the autosave could not be
    written (said with the path), True otherwise."""
    with _signals_held():
        return _farewell(game, saves_base, write)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGTERM and SIGHUP ignored for the duration (main thread only: elsewhere there is nothing
    to hold), then their handlers back."""
    names = ("SIGTERM", "SIGHUP")
    sigs = [getattr(signal, n) for n in names if hasattr(signal, n)]
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {sig: signal.signal(sig, signal.SIG_IGN) for sig in sigs}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)


def _farewell(game, saves_base, write) -> bool:
    to_terminal = write

    def write(text: str) -> None:
        try:
            to_terminal(text)
        except (OSError, ValueError):  # the terminal is gone (SIGHUP, closed pipe): keep saving
            pass

    st = game.engine.state
    write(f"Score {st.score}, quests {len(st.quests_done)}/{len(game.spec.quests)}, turn {st.turn}.")
    if st.done and game.insights is not None:
        try:
            # the insight bank: what this game taught its characters becomes what they recall next time
            kept = game.learn()
            if kept:
                lessons = f"{kept} lesson{'s' if kept != 1 else ''}"
                write(f"The people of this world will remember this game next time ({lessons} kept).")
        except (ParleyError, OSError) as e:
            write(f"Could not record lessons: {getattr(e, 'message', e)}")
    if st.done:
        retired = retire_autosave(game, saves_base)
        if retired:
            write(shown(f"This game is over, so the autosave it continued ({retired}) is cleared."))
    if not st.done and st.turn > 0:
        name = autosave_name(game)
        try:
            folder, kept = write_autosave(game, saves_base)
            if kept:
                write(shown(f"The autosave of another game was kept as {kept}."))
            again = load_command(game, name, saves_base)
            if is_persons(game):
                write(shown(f"Progress saved to {folder}; continue with: {again}"))
            else:
                write(
                    shown(
                        f"The watched game was saved to {folder} (your own autosave is untouched); "
                        f"play it on with: {again}"
                    )
                )
        except (ParleyError, OSError) as e:
            write(shown(f"Could not autosave: {getattr(e, 'message', e)}"))
            return False
    return True
