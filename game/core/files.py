"""Reading files that come from users, safely: regular files only, a size limit, never blocking;
and writing files whole (``write_atomic``).

Worlds, scripts, insight banks and saves are read through ``read_limited``:
a path is checked with ``stat`` before it is opened (a named pipe, a device, a
folder or a symlink loop is reported, never opened), the file is opened
non-blocking and re-checked, and at most one byte past the limit is read (a
symlink to ``/dev/zero`` or a file that grows cannot exhaust memory). With a
``root``, symlinks must resolve inside that folder.

Every file Parley replaces (saves, reports, results metadata, the LLM cache, the
insight bank, ``--out`` files, the map) is written through ``write_atomic``: a
reader sees the old file or the new one, never a mix, and after a crash or a
power cut the file is one of the two.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from game.core.errors import InputError
from game.core.text import shown

MAX_FILE_BYTES = 10 * 1024 * 1024
"""The largest file read from a user (10 MB)."""


def kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def stat_of(path: Path) -> tuple[os.stat_result | None, str | None]:
    """``stat`` of ``path`` following symlinks, or why it cannot be had ("missing", "a symlink
    loop", ...). Never opens anything, so it never blocks."""
    try:
        return os.stat(path), None
    except OSError as e:
        if e.errno == errno.ELOOP:
            return None, "a symlink loop"
        if e.errno in (errno.ENOENT, errno.ENOTDIR):
            return None, "a broken symlink" if os.path.islink(path) else "missing"
        return None, f"unreadable ({e.strerror})"


def _inside(path: Path, root: Path) -> bool:
    real = os.path.realpath(path)
    base = os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def path_problem(
    path: Path,
    root: Path | None = None,
    want: str = "file",
    root_name: str = "world folder",
    limit: int = MAX_FILE_BYTES,
) -> tuple[str, str | None] | None:
    """Why ``path`` is not a readable regular file (``want="file"``) or folder (``"folder"``)
    below ``root``, as (message, hint), or None when it is. Only stats; never blocks."""
    st, why = stat_of(path)
    if st is None:
        if why == "missing":
            return "missing", None
        if why == "a symlink loop":
            return "is a symlink loop", "the link points back at itself; make it point to a real file"
        if why == "a broken symlink":
            return f"is a broken symlink (to {os.readlink(path)!r})", None
        return f"is {why}", None
    if root is not None and os.path.islink(path) and not _inside(path, root):
        return (
            f"is a symlink to {shown(os.path.realpath(path))!r}, outside the {root_name}",
            f"links may point only to files inside the {root_name}; copy the file in instead",
        )
    if want == "folder":
        return None if stat.S_ISDIR(st.st_mode) else (f"is {kind_of(st.st_mode)}, not a folder", None)
    if stat.S_ISDIR(st.st_mode):
        return "is a folder, not a file", None
    if not stat.S_ISREG(st.st_mode):
        return f"is {kind_of(st.st_mode)}, not a regular file", "give an ordinary text file"
    if st.st_size > limit:
        return f"is {st.st_size:,} bytes; the limit is {_mb(limit)}", None
    return None


def _what_is(mode: int) -> str:
    return "a file" if stat.S_ISREG(mode) else kind_of(mode)


def _unreadable(why: str | None) -> str:
    """The reason inside ``stat_of``'s "unreadable (reason)" (a name too long, no access)."""
    return why.removeprefix("unreadable (").removesuffix(")") if why else "cannot be reached"


def _nearest(parent: Path) -> Path:
    """``parent``, or its nearest ancestor that exists (where missing folders would be made)."""
    while not os.path.lexists(parent) and parent != parent.parent:
        parent = parent.parent
    return parent


def folder_problem(text: str) -> str | None:
    """Why the folder ``text`` cannot be used or made, or None: it exists and is not a folder
    (following symlinks), it is a broken symlink or cannot be reached (a name too long, a loop), or
    its nearest existing parent is not a folder. Only stats; never blocks."""
    path = Path(text)
    st, why = stat_of(path)
    if st is not None:
        return None if stat.S_ISDIR(st.st_mode) else f"{shown(text)[:200]} is {_what_is(st.st_mode)}, not a folder"
    if why != "missing" or os.path.islink(path):
        said = f": {_unreadable(why)}" if why and why.startswith("unreadable (") else f" is {why}, not a folder"
        return f"{shown(text)[:200]}{said}"
    parent = _nearest(path.absolute().parent)
    st, why = stat_of(parent)
    if st is None or not stat.S_ISDIR(st.st_mode):
        what = why if st is None else _what_is(st.st_mode)
        return f"{shown(text)[:200]}: {shown(str(parent))[:200]} is {what}, not a folder"
    return None


def _mb(n: int) -> str:
    return f"{n // (1024 * 1024)} MB"


def open_regular(path: Path, write: bool = False) -> tuple[int | None, tuple[str, str | None] | None]:
    """A descriptor of the regular file at ``path`` (for reading, or with ``write`` for appending,
    created when missing), or (None, (message, hint)). Opened non-blocking, so a named pipe or a
    device never stalls the open, and checked with ``fstat`` before anything is read or written;
    the descriptor is blocking again when returned."""
    flags = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    flags |= getattr(os, "O_NOCTTY", 0)
    flags |= os.O_WRONLY | os.O_APPEND | os.O_CREAT if write else os.O_RDONLY
    st, _ = stat_of(path)
    if st is not None and not stat.S_ISREG(st.st_mode):  # never opened: a device is not even touched
        return None, (
            "is a folder, not a file" if stat.S_ISDIR(st.st_mode) else f"is {kind_of(st.st_mode)}, not a regular file",
            "give an ordinary file",
        )
    try:
        fd = os.open(os.path.realpath(path), flags, 0o666)
    except OSError as e:
        if e.errno == errno.ENXIO:  # a named pipe nobody reads, opened for writing
            return None, ("is a named pipe (FIFO), not a regular file", None)
        return None, (f"cannot {'write' if write else 'read'}: {e.strerror}", None)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):  # not a file, or swapped after a check
        os.close(fd)
        return None, (f"is {kind_of(st.st_mode)}, not a regular file", "give an ordinary file")
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return fd, None


def read_limited(
    path: Path, root: Path | None = None, limit: int = MAX_FILE_BYTES
) -> tuple[bytes | None, tuple[str, str | None] | None]:
    """The bytes of a regular file of at most ``limit`` bytes, or (None, (message, hint)).
    Checks with ``stat`` before opening, opens non-blocking, re-checks the opened file, and
    reads at most one byte past the limit."""
    why = path_problem(path, root, limit=limit)
    if why is not None:
        return None, why
    fd, why = open_regular(path)
    if fd is None:
        return None, why
    try:
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            return None, (f"is larger than the limit of {_mb(limit)}", None)
        return b"".join(chunks), None
    except OSError as e:
        return None, (f"cannot read: {e.strerror}", None)
    finally:
        os.close(fd)


def read_bytes(path: str | Path, what: str = "file", limit: int = MAX_FILE_BYTES) -> bytes:
    """``read_limited`` for one file a user named (a script, an insight bank, a save): the
    bytes, or ``InputError`` saying which file and what is wrong with it (exit code 2)."""
    raw, why = read_limited(Path(path), limit=limit)
    if raw is None:
        message, hint = why  # type: ignore[misc]
        if message == "missing":
            message = "no such file"
        raise InputError(f"cannot read {what} {shown(str(path))}: {message}", hint=hint)
    return raw


def read_text(
    path: str | Path,
    *,
    limit: int = MAX_FILE_BYTES,
    error: type[InputError] = InputError,
    missing_hint: str | None = None,
    hint: str | None = None,
) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes, or ``error`` (an
    ``InputError`` kind) saying ``PATH: what is wrong``. ``missing_hint`` goes with a missing
    file, ``hint`` with every other problem that has none of its own."""
    raw, why = read_limited(Path(path), limit=limit)
    if raw is None:
        message, own = why  # type: ignore[misc]
        raise error(f"{shown(str(path))}: {message}", hint=missing_hint if message == "missing" else own or hint)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise error(f"{shown(str(path))}:{line}: not UTF-8 text", hint=hint) from None


# --- writing -----------------------------------------------------------------------------------


def fsync_dir(fd: int | None) -> None:
    """Make renames and deletions in the folder open as ``fd`` durable (nothing to do for None,
    or on a file system that cannot fsync a folder)."""
    if fd is None:
        return
    try:
        os.fsync(fd)
    except OSError as e:  # pragma: no cover - file systems without directory fsync
        if e.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise


@contextlib.contextmanager
def open_dir(folder: str | os.PathLike[str]) -> Iterator[int | None]:
    """A read-only descriptor of ``folder`` for ``fsync_dir``, closed on exit; None on platforms
    that cannot open a folder (Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # pragma: no cover - Windows
        yield None
        return
    try:
        yield fd
    finally:
        os.close(fd)


def _temp_beside(path: Path, mode: int) -> tuple[int, Path]:
    """A new file ``.<name>.<random>.tmp`` in ``path``'s folder, open for writing."""
    flags = (
        os.O_WRONLY
        | os.O_CREAT
        | os.O_EXCL
        | getattr(os, "O_CLOEXEC", 0)
        | getattr(os, "O_NOFOLLOW", 0)
        | getattr(os, "O_BINARY", 0)
    )
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, flags, mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(tmp))  # pragma: no cover


class WriteError(OSError, InputError):
    """A file could not be written (disk full, no permission, a folder in the way, a parent that
    is a file): an ``OSError`` naming the path (``filename``, never a temp file) for the code that
    catches those, and an ``InputError`` for the command line (exit code 2, one line)."""

    def __init__(self, err: int | None, strerror: str, path: str | os.PathLike[str], what: str = ""):
        OSError.__init__(self, err, strerror, str(path))
        where = f"{what} {shown(str(path))}" if what else shown(str(path))
        self.message = f"cannot write {where}: {strerror}"
        self.hint = None

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> Any:  # across process boundaries (a tournament's workers) as itself
        return (type(self), (self.errno, self.strerror, self.filename))


def _failed(e: OSError, path: str | os.PathLike[str], what: str = "") -> WriteError:
    return e if isinstance(e, WriteError) else WriteError(e.errno, e.strerror or str(e), path, what)


def write_atomic(
    path: str | os.PathLike[str],
    data: str | bytes,
    *,
    encoding: str = "utf-8",
    mode: int = 0o666,
    dir_fd: int | None = None,
) -> Path:
    """Replace ``path`` with ``data`` (text, encoded with ``encoding``, written as it is with no
    newline translation; or bytes) so that it is always the old file or the new one, whole.

    The data goes to a temp file ``.<name>.<random>.tmp`` in the same folder (created with
    ``mode``, less the umask, as ``open`` does), is flushed and fsynced, then ``os.replace``-d
    over ``path``, and the folder is fsynced so the rename survives a power cut. ``dir_fd``: an
    open descriptor of the folder to fsync (a caller that holds one, as a save does); else the
    folder is opened for it. Missing parent folders are created. Only a regular file (or
    nothing) is replaced: a folder, a device, a pipe or a socket at ``path`` is refused, never
    swapped for a file. On any failure the temp file is removed and a ``WriteError`` (an
    ``OSError``) names ``path``. Returns ``path``."""
    path = Path(path)
    raw = data.encode(encoding) if isinstance(data, str) else bytes(data)
    try:
        st = os.stat(path)
    except OSError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        code = errno.EISDIR if stat.S_ISDIR(st.st_mode) else errno.EINVAL
        raise WriteError(code, f"it is {kind_of(st.st_mode)}, not a regular file", path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = _temp_beside(path, mode)
        try:
            with open(fd, "wb") as fh:
                fh.write(raw)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        if dir_fd is not None:
            fsync_dir(dir_fd)
        else:
            with open_dir(path.parent) as dfd:
                fsync_dir(dfd)
    except OSError as e:
        raise _failed(e, path) from e
    return path


def _stream(mode: int) -> bool:
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def check_output(path: str | os.PathLike[str], what: str = "--out", folders: bool = False) -> Path:
    """Refuse, before any work, an output file ``what`` (a flag) cannot be written to: an empty
    name, a folder, a block device, a parent that is missing or is not a folder. A stream that
    exists (``/dev/stdout``, a named pipe, a terminal) is accepted: it is written straight through."""
    text = os.fspath(path)
    if not text.strip():
        raise InputError(f"{what} is empty", hint="give a file name")
    path = Path(text)
    st, why = stat_of(path)
    if st is None and why not in ("missing", "a broken symlink"):  # a name too long, a loop, no access
        raise InputError(f"{what} {shown(text)[:200]}: {_unreadable(why)}", hint="give a file name you can write")
    if st is not None and _stream(st.st_mode):
        return path
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InputError(f"{what} {shown(text)}: is a folder", hint="give a file name")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise InputError(f"{what} {shown(text)}: is {kind_of(st.st_mode)}", hint="write the output to a file")
    parent = _nearest(path.parent)
    if not parent.is_dir():
        raise InputError(
            f"{what} {shown(text)}: {shown(str(parent))} is not a folder", hint="give a path inside a folder"
        )
    if parent != path.parent and not folders:  # ``folders``: the write creates the missing ones
        raise InputError(f"{what} {shown(text)}: no folder {shown(str(path.parent))}", hint="create it first")
    return path


def _open_stream(path: Path, mode: int) -> int:
    """Open a stream for writing. A named pipe is opened without waiting: with no program reading
    it, opening would wait for ever, so that is an error (``ENXIO``) said as such; once a reader is
    there, writes wait for it as usual."""
    flags = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    if not stat.S_ISFIFO(mode):
        return os.open(path, flags)
    try:
        fd = os.open(path, flags | os.O_NONBLOCK)
    except OSError as e:
        if e.errno == errno.ENXIO:
            raise OSError(e.errno, "no program is reading from this named pipe") from None
        raise
    os.set_blocking(fd, True)
    return fd


def write_output(path: str | os.PathLike[str], data: str | bytes, what: str = "--out", folders: bool = False) -> Path:
    """Write a command's output file (``--out FILE``, ``--plot FILE``): checked as
    ``check_output`` says; a file is replaced atomically (an old file is never half-replaced); a
    stream that already exists (``/dev/stdout``, a named pipe, a terminal) is written straight
    through, never replaced by a file, and every step of that write (open, write, flush, close)
    is checked. Any failure is a ``WriteError`` naming the path (exit code 2)."""
    path = check_output(path, what, folders)
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    st, _ = stat_of(path)
    if st is None or not _stream(st.st_mode):
        try:
            return write_atomic(path, raw)
        except WriteError as e:
            raise WriteError(e.errno, e.strerror or str(e), path, what) from e
    try:
        fd = _open_stream(path, st.st_mode)
        try:
            view = memoryview(raw)
            while view:  # a short write is not the end: a pipe takes what it can
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
    except OSError as e:
        raise WriteError(e.errno, e.strerror or str(e), path, what) from None
    return path
