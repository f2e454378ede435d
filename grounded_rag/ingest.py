"""``grounded-rag ingest``: files and folders into a store that mirrors them.

Each file is keyed by its path and versioned by a hash of its text (and how it is cut): a file whose version the
store already holds is not embedded again, a renamed file's chunks keep their vectors, and the chunks of a file no
longer in a folder given go (``--no-sync`` keeps them). Chunks are embedded and stored in batches under a progress
bar, so a file of any size within ``--max-file-mb`` goes in without meeting Chroma's batch limit.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from .sources import MAX_FILE_MB, READ_SUFFIXES, SourceFile, read_sources, skipped_summary


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`grounded-rag ingest`'s arguments."""
    ingest = sub.add_parser("ingest", help="chunk text, markdown, HTML and PDF files into a Chroma store")
    ingest.add_argument("files", nargs="+", help="files, or folders: their " + ", ".join(READ_SUFFIXES) + " files, "
                        "in subfolders too (others are named as skipped); the store mirrors a folder given: the "
                        "chunks of its files that are gone (deleted, renamed) are removed")
    ingest.add_argument("--store", required=True, help="the store's folder (made if missing; ask --store DIR reads it)")
    ingest.add_argument("--chunk-chars", type=int, default=800,
                        help="largest chunk, in characters: paragraphs are packed up to it (default: 800)")
    ingest.add_argument("--no-sync", action="store_true",
                        help="only add and update: keep the chunks of files no longer in the folders given")
    ingest.add_argument("--max-file-mb", type=float, default=MAX_FILE_MB,
                        help=f"refuse a file larger than this, before reading it (default: {MAX_FILE_MB:g} MB, about "
                             "25,000 chunks to embed)")
    ingest.add_argument("--remove", action="store_true",
                        help="delete these files' chunks (a folder: every file under it) from the store instead "
                             "(the files need not exist)")
    ingest.set_defaults(func=cmd_ingest)


def cmd_ingest(ns: argparse.Namespace) -> int:
    from .errors import InputError
    from .retrieval import ChromaStore, existing_store

    if ns.remove:
        existing_store(ns.store)  # a mistyped store is named, not made empty and reported as "removed 0 chunks"
        with ChromaStore.writing(ns.store) as store:
            removed = store.remove(ns.files)
        print(f"removed {removed} chunks from {ns.store}")
        return 0
    if not ns.max_file_mb > 0:
        raise InputError(f"--max-file-mb {ns.max_file_mb:g}: give a size above 0, in MB")
    reading = read_sources(ns.files, chunk_chars=ns.chunk_chars, max_file_mb=ns.max_file_mb)  # all checked first
    for line in skipped_summary(reading.skipped):
        print(line)
    with ChromaStore.writing(ns.store) as store:  # a concurrent ingest into the same store waits
        store.sweep()
        held = store.held()
        todo = [s for s in reading.sources if held.get(s.key) != Counter({s.version: len(s.chunks)})]
        _store_with_progress(store, todo)
        removed = (0, 0)
        if reading.folders and not ns.no_sync:
            removed = store.remove_missing(reading.folders, [s.key for s in reading.sources])
    _report(ns.store, reading.sources, todo, reading.folders, removed)
    return 0


def _store_with_progress(store, sources: Sequence[SourceFile]) -> None:
    """The files stored one by one under a progress bar over their chunks on stderr (a terminal only: a log gets the
    summary line), which names the file being embedded; a killed ingest keeps the files it finished."""
    from tqdm import tqdm

    shown = sys.stderr is not None and not sys.stderr.closed  # `2>&-` leaves no stream to draw on
    total = sum(len(s.chunks) for s in sources)
    with tqdm(total=total, desc="ingesting", unit="chunk", file=sys.stderr, disable=None if shown else True) as bar:
        for source in sources:
            count = len(source.chunks)
            bar.set_postfix_str(f"{Path(source.given or source.key).name}: {count} chunk{'s' * (count != 1)}")
            store.replace([source], progress=bar.update)


def _report(store: str, sources: Sequence[SourceFile], stored: Sequence[SourceFile], folders: Sequence[Path],
            removed: tuple[int, int]) -> None:
    for source in sources:
        if not source.chunks:
            print(f"{source.key}: no text (its chunks, if any, were removed)")
    chunks = sum(len(s.chunks) for s in sources)
    print(f"ingested {chunks} chunks from {len(sources)} file(s) into {store} ({len(stored)} new or changed, "
          f"{len(sources) - len(stored)} unchanged)")
    if removed[1]:
        where = ", ".join(str(f) for f in folders)
        print(f"removed {removed[0]} chunks of {removed[1]} file(s) no longer in {where} (--no-sync keeps them)")
