"""Where the book's files are, and reading and writing them: every write is atomic (a reader, or a run interrupted
half-way, sees the old file or the new one, never half of one), and a corrupted JSON file is
named in its error."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

BOOK_ROOT = Path(__file__).resolve().parents[1]   # the repository: _config.yml, notebooks/, ko/
NOTEBOOK_DIR = BOOK_ROOT / "notebooks"            # the book's notebooks


def atomic_write(path, text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path``: into a temporary file in the same folder, flushed to disk,
    then ``os.replace``d onto ``path``. The file keeps its permissions (a new one gets the
    umask's). The one way every tool of the book writes a file."""
    path = Path(path)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def write_json(path, data, **dumps) -> Path:
    """``data`` as JSON (``json.dumps(data, **dumps)``), written atomically."""
    return atomic_write(path, json.dumps(data, **dumps))


def write_notebook(nb, path) -> Path:
    """What ``nbformat.write(nb, path)`` writes, atomically."""
    import nbformat
    text = nbformat.writes(nb)
    return atomic_write(path, text if text.endswith("\n") else text + "\n")


def read_json(path, encoding: str = "utf-8"):
    """The JSON in ``path``; a ``ValueError`` naming the file, the line and the column when it is
    not valid JSON (a truncated or hand-edited file)."""
    path = Path(path)
    text = path.read_text(encoding=encoding)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON (corrupted or truncated?): {exc.msg} at line "
                         f"{exc.lineno}, column {exc.colno}") from None
