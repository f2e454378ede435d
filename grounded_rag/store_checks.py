"""What is checked of a store folder before Chroma opens it: that it is a store made by ``ingest`` (not the documents
themselves, not an emptied or foreign database, which Chroma would quietly make into a fresh store), and that its
index files do not crash Chroma's native code (read in a child process first). Each failure is an InputError that
names the fix; none needs Chroma imported in this process."""

from __future__ import annotations

import contextlib
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from .errors import InputError

DATABASE = "chroma.sqlite3"


def existing_store(path: str | Path) -> Path:
    """The folder of a store made by ``grounded-rag ingest``, or the error that says how to make one (checked without
    importing Chroma: ``ask --store`` says it at once)."""
    folder = Path(path)
    if not (folder / DATABASE).exists():
        documents = "a file" if folder.is_file() else "a folder of files" if _holds_files(folder) else None
        if documents is not None:  # the documents, not their store
            raise InputError(f"{folder} is {documents}, not a store made by ingest; make a store of "
                             f"{'it' if folder.is_file() else 'them'} first: grounded-rag ingest {folder} --store "
                             "./store, then ask with --store ./store")
        raise InputError(f"no Chroma store at {folder}; create one with: grounded-rag ingest FILES --store {folder}")
    return folder


def _holds_files(folder: Path) -> bool:
    """Whether ``folder`` is a folder with a file in it."""
    try:
        return any(p.is_file() for p in folder.iterdir())
    except OSError:  # unreadable: not said to hold files (the missing-store message names it)
        return False


def check_database(folder: Path) -> None:
    """The store's database looked at read-only, before Chroma opens it: Chroma makes a fresh database in an empty
    file, so a read of an emptied store would write one, and the next ingest would add to it as if nothing were
    lost. A file that is not SQLite at all is left to Chroma's own open, which says it cannot be read."""
    db = folder / DATABASE
    if db.stat().st_size == 0:
        raise damaged_store(folder, f"its database {DATABASE} is empty, 0 bytes")
    try:
        with contextlib.closing(sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)) as con:
            tables = {row[0] for row in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error:
        return
    if "collections" not in tables:
        raise damaged_store(folder, f"its {DATABASE} holds no Chroma tables")


# Signals that mean Chroma's native code crashed on what it read (not that something else ended the process)
CRASH_SIGNALS = frozenset({signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT, signal.SIGILL, signal.SIGFPE})


def damaged_store(folder: str | Path, why: str) -> InputError:
    """The error for a store whose files Chroma cannot read, with the fix."""
    return InputError(f"the store at {folder} is damaged ({why}); move it aside and make it again with: "
                      f"grounded-rag ingest FILES --store {folder}")


def crash_error(folder: str | Path, returncode: int | None) -> InputError | None:
    """The damaged-store error where a process that read the store died by a crash signal, else None."""
    if returncode is None or -returncode not in CRASH_SIGNALS:
        return None
    return damaged_store(folder, f"reading it crashed Chroma with {signal.Signals(-returncode).name}")


_CHECK_APART = """
import sys
from grounded_rag.errors import GroundedRAGError
from grounded_rag.retrieval import ChromaStore
try:
    ChromaStore.open(sys.argv[1]).client.close()
except GroundedRAGError as exc:
    print(exc)
    sys.exit(3)
"""


def check_store_apart(path: str | Path) -> None:
    """Open and read a store in a child process before this one does. Damaged index files can crash Chroma's
    native code (a segmentation fault no Python code can catch); in a server that would take every client's
    request down with it, so the server and ingest learn it here, as an error that names the fix. A child that
    fails for any other reason leaves the store to this process's own open, which says what is wrong."""
    folder = existing_store(path)
    out = subprocess.run([sys.executable, "-c", _CHECK_APART, str(folder)], capture_output=True, text=True)
    crashed = crash_error(folder, out.returncode)
    if crashed is not None:
        raise crashed
    if out.returncode == 3 and out.stdout.strip():
        raise InputError(out.stdout.strip())


def persistent_client(folder: Path):
    """Chroma's client of a store folder; a folder Chroma cannot read (a damaged or foreign database) is said as
    such, with the fix, not as Chroma's traceback."""
    import chromadb
    from chromadb.errors import ChromaError

    try:
        return chromadb.PersistentClient(path=str(folder))
    except ChromaError as exc:
        if "readonly" in str(exc).replace("-", "").replace(" ", "").lower():  # "attempt to write a readonly database"
            raise InputError(f"the store at {folder} is read-only here (Chroma opens its database for writing); give "
                             "this user write access to the folder and its files, or copy the store somewhere "
                             "writable") from exc
        raise InputError(f"the store at {folder} cannot be read ({exc}); move it aside and make it again with: "
                         f"grounded-rag ingest FILES --store {folder}") from exc
