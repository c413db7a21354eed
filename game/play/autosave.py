"""What a front end does with a player's game besides playing it: the one autosave per world
(kept apart from another game's), ``save NAME`` typed in the game (asking before overwriting a
save this session did not write), the farewell (summary, lessons, autosave) and the journal as
terminal-safe text. The console and the TUI share these."""

from __future__ import annotations

import os

from game.core.errors import ParleyError
from game.core.text import clean, shown
from game.play.save_files import SAVE_FILE, read_save, remove, save_folder, slugify


def autosave_name(game) -> str:
    """One autosave per world, so playing another world never overwrites it."""
    return f"autosave-{game.spec.id}"


def keep_other_autosave(game, saves_base) -> str | None:
    """If ``autosave-<world>`` holds another game (not the one this game was loaded from), move it
    to ``autosave-<world>-previous`` (replacing an older one) so the autosave about to be written
    never silently replaces it. Returns the name it was kept under, or None."""
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


def farewell(game, saves_base, write) -> None:
    """Summary line, and an autosave if the game is unfinished (also after a crash, Ctrl-C, or
    SIGTERM/SIGHUP: a closed terminal cannot be written to, and the save is made all the same)."""
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
    if not st.done and st.turn > 0:
        name = autosave_name(game)
        try:
            kept = keep_other_autosave(game, saves_base)
            if kept:
                write(shown(f"The autosave of another game was kept as {kept}."))
            folder = game.save(name, saves_base)
            llm = getattr(game, "llm", None)
            url = llm.config.public_dict()["base_url"] if llm else ""
            again = f" --llm {'URL' if '***' in url else url} --model {llm.config.model}" if llm else ""
            write(shown(f"Progress saved to {folder}; continue with: parley play --load {name}{again}"))
        except (ParleyError, OSError) as e:
            write(shown(f"Could not autosave: {getattr(e, 'message', e)}"))
