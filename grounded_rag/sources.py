"""The files a store is made of: what a folder given to ``ingest`` contributes, each file's text (HTML turned into
text, PDF through pypdf), and its chunks, keyed by the file and a hash of its text.

Nothing here touches a store: every file is read and checked before any is stored, so a bad one refuses the whole
ingest and nothing is half-stored.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from importlib.util import find_spec
from pathlib import Path

from .errors import InputError
from .types import Document

TEXT_SUFFIXES = (".md", ".markdown", ".txt", ".text", ".rst")  # read as they are
HTML_SUFFIXES = (".html", ".htm", ".xhtml")  # read as the text a browser shows
PDF_SUFFIXES = (".pdf",)  # read through pypdf (the `pdf` extra)
READ_SUFFIXES = TEXT_SUFFIXES + HTML_SUFFIXES + PDF_SUFFIXES  # what a folder given to ingest contributes
#: documents users keep beside their text that ingest does not read: said, with the fix, never stored as bytes
UNREAD_KINDS = {".docx": "a Word document", ".doc": "a Word document", ".odt": "an OpenDocument text",
                ".rtf": "rich text", ".pptx": "a slide deck", ".ppt": "a slide deck", ".xlsx": "a spreadsheet",
                ".xls": "a spreadsheet", ".epub": "an e-book"}
MAX_FILE_MB = 20.0  # one file's size, in MB: ~25,000 chunks of 800 characters to embed
PDF_FIX = "pip install 'grounded-rag[pdf]'"


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


@dataclass(frozen=True)
class Found:
    """The files to read; those passed over, each with why (said to the user, never dropped in silence); and the
    folders given, which an ingest mirrors."""

    paths: list[Path]
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class Reading:
    """What :func:`read_sources` read: the files' chunks, the files passed over and the folders given."""

    sources: list[SourceFile]
    skipped: list[tuple[Path, str]]
    folders: list[Path]


def find_files(names: Iterable[str | Path]) -> Found:
    """Files as given, and for a folder the files it holds that ingest reads (:data:`READ_SUFFIXES`), in its
    subfolders too, in name order. Hidden files and folders (``.git``) are passed over unsaid; every other file
    passed over is said with its reason: another kind, a link that loops or leads nowhere, a link to a file outside
    the folder (``notes.md -> /etc/passwd``: a served store would hand its text to its clients). A file named on its
    own is read wherever its link leads: the user named it."""
    found = Found([])
    for name in names:
        path = Path(name)
        if path.is_dir():
            _walk(path, found)
            continue
        if not path.exists():
            what = "a link that loops or leads nowhere" if path.is_symlink() else "no such file or folder"
            raise InputError(f"{path}: {what}; pass text, markdown, HTML or PDF files, or folders of them")
        if path.suffix.lower() in UNREAD_KINDS:
            raise InputError(f"{path} is {UNREAD_KINDS[path.suffix.lower()]}, which ingest does not read; save it "
                             "as PDF, HTML or text and ingest that")
        found.paths.append(path)
    return found


def _walk(folder: Path, found: Found) -> None:
    """One folder's files into ``found`` (see :func:`find_files`)."""
    found.folders.append(folder)
    before = len(found.paths)
    for file in sorted(Path(root, f) for root, _, files in os.walk(folder) for f in files
                       if not f.startswith(".")
                       if not any(part.startswith(".") for part in Path(root).relative_to(folder).parts)):
        why = _passed_over(file, folder)
        if why is None:
            found.paths.append(file)
        else:
            found.skipped.append((file, why))
    if len(found.paths) == before:
        held = [why for path, why in found.skipped if folder in path.parents]
        said = f" (it holds {len(held)} other file(s): {held[0]})" if held else ""
        raise InputError(f"the folder {folder} holds no text or markdown files ({', '.join(READ_SUFFIXES)}){said}; "
                         "pass the files to ingest by name")


def _passed_over(file: Path, folder: Path) -> str | None:
    """Why a file found in ``folder`` is not read, or None."""
    suffix = file.suffix.lower()
    if suffix not in READ_SUFFIXES:
        kind = UNREAD_KINDS.get(suffix)
        return (f"{kind}, which ingest does not read: save it as PDF, HTML or text" if kind else
                f"a {suffix or 'suffixless'} file, not one ingest reads ({', '.join(READ_SUFFIXES)})")
    if not _inside(file, folder):
        return "a link to a file outside the folder"
    if not file.is_file():
        return "a link that loops or leads nowhere" if file.is_symlink() else "not a regular file"
    if suffix in PDF_SUFFIXES and find_spec("pypdf") is None:
        return f"a PDF, and reading PDFs needs pypdf: {PDF_FIX}"
    return None


def _inside(file: Path, folder: Path) -> bool:
    """Whether a file found in ``folder`` is in it: not a link that leads out (a broken or looping link counts as
    inside, so that what is wrong with it is said)."""
    if not file.is_symlink():
        return True
    try:
        return file.resolve(strict=True).is_relative_to(folder.resolve())
    except (OSError, RuntimeError):  # RuntimeError: a link loop, before Python 3.13
        return True


def skipped_summary(skipped: list[tuple[Path, str]], shown: int = 5) -> list[str]:
    """The files passed over, one line each up to ``shown``, then a count by kind."""
    lines = [f"skipped {path}: {why}" for path, why in skipped[:shown]]
    rest = Counter(path.suffix.lower() or "(no suffix)" for path, _ in skipped[shown:])
    if rest:
        kinds = ", ".join(f"{n} {suffix}" for suffix, n in rest.most_common())
        lines.append(f"skipped {sum(rest.values())} more file(s) ingest does not read: {kinds}")
    return lines


def read_sources(files: Iterable[str | Path], chunk_chars: int = 800, max_file_mb: float = MAX_FILE_MB) -> Reading:
    """Files (or folders of them, :func:`find_files`) into chunks titled by file name. Every file is checked before
    any is returned; a file named twice is read once. Chunk ids are unique to the file and version, so a new version
    can be stored beside the old before the old is removed."""
    found = find_files(files)
    sources: dict[str, SourceFile] = {}
    for key, path in _one_path_per_file(found.paths).items():
        text = file_text(path, max_file_mb)
        version = _version(text, chunk_chars)
        chunks = [
            Document(text=chunk, title=_printable(path.stem), id=_chunk_id(key, version, i),
                     metadata={"source": _printable(str(path)), "chunk": i, "file": key, "version": version})
            for i, chunk in enumerate(chunk_text(text, chunk_chars))
        ]
        sources[key] = SourceFile(key, version, chunks, _printable(str(path)))
    return Reading(list(sources.values()), found.skipped, found.folders)


def read_files(files: Iterable[str | Path], chunk_chars: int = 800) -> list[SourceFile]:
    """:func:`read_sources`' files alone."""
    return read_sources(files, chunk_chars).sources


def chunk_files(files: Iterable[str | Path], chunk_chars: int = 800) -> list[Document]:
    """Files into Documents titled by file name, with ids stable for the file and its text."""
    return [chunk for source in read_files(files, chunk_chars) for chunk in source.chunks]


def file_text(path: Path, max_file_mb: float = MAX_FILE_MB) -> str:
    """A file's text: as written (text, markdown), as a browser shows it (HTML), or extracted (PDF); a file over
    ``max_file_mb`` is refused before it is read."""
    if not path.is_file():
        raise InputError(f"{path} is not a file; pass text, markdown, HTML or PDF files, or folders of them")
    size = path.stat().st_size
    if size > max_file_mb * 1e6:
        raise InputError(f"{path} is {size / 1e6:.1f} MB, over ingest's limit of {max_file_mb:g} MB a file; split it, "
                         f"or raise the limit with --max-file-mb {size / 1e6 + 1:.0f}")
    suffix = path.suffix.lower()
    if suffix in PDF_SUFFIXES:
        return pdf_text(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark is no part of the text
    except UnicodeDecodeError:
        raise InputError(f"{path} is not UTF-8 text; only text, markdown, HTML and PDF files can be ingested") from None
    if "\x00" in text:
        raise InputError(f"{path} holds NUL bytes, so it is not text; only text and markdown files can be ingested")
    return html_text(text) if suffix in HTML_SUFFIXES else text


class _VisibleText(HTMLParser):
    """The text of an HTML page as a reader sees it: no markup, scripts, styles or comments; a blank line at each
    block's edges, so that chunking keeps paragraphs apart."""

    HIDDEN = frozenset({"script", "style", "template", "head", "noscript", "svg", "iframe", "object"})
    BLOCKS = frozenset({"p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "table",
                        "section", "article", "header", "footer", "blockquote", "pre", "hr", "dt", "dd", "main",
                        "nav", "aside", "figure", "figcaption", "form", "title", "body"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in self.HIDDEN:
            self.hidden += 1
        elif tag in self.BLOCKS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in self.BLOCKS:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def html_text(markup: str) -> str:
    """An HTML page's visible text, paragraphs apart and each one's whitespace collapsed."""
    parser = _VisibleText()
    parser.feed(markup)
    parser.close()
    blocks = (" ".join(block.split()) for block in "".join(parser.parts).split("\n\n"))
    return "\n\n".join(block for block in blocks if block)


def pdf_text(path: Path) -> str:
    """A PDF's text, page by page, through pypdf."""
    try:
        from pypdf import PdfReader
        from pypdf.errors import PyPdfError
    except ImportError:
        raise InputError(f"{path} is a PDF, and reading PDFs needs pypdf: {PDF_FIX}") from None
    try:
        reader = PdfReader(path)
        if reader.is_encrypted:
            raise InputError(f"{path} is an encrypted PDF; save a copy without a password and ingest that")
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
    except (PyPdfError, ValueError, KeyError, TypeError, OSError) as exc:
        raise InputError(f"{path} cannot be read as a PDF ({type(exc).__name__}: {exc}); save it again as PDF or "
                         "text and ingest that") from None
    return "\n\n".join(page for page in pages if page)


def _one_path_per_file(paths: Iterable[Path]) -> dict[str, Path]:
    """Each file once, keyed by its real path, under the first name that is not a link to it (a folder holding a
    file and a link to it credits the file, not the link), else the first name given."""
    chosen: dict[str, Path] = {}
    for path in paths:
        try:
            key = _printable(str(path.resolve()))
        except (OSError, RuntimeError):  # a link that loops (RuntimeError before Python 3.13)
            raise InputError(f"{path}: a link that loops or leads nowhere; pass the file it should name") from None
        if key not in chosen or (chosen[key].is_symlink() and not path.is_symlink()):
            chosen[key] = path
    return chosen


def _version(text: str, chunk_chars: int) -> str:
    """A file's version: a hash of its text and how it was cut (the same text cut otherwise is chunked anew)."""
    return hashlib.sha256(f"{chunk_chars}\n{text}".encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _chunk_id(key: str, version: str, index: int) -> str:
    """A chunk's id: its file, the file's version and its place in it (a digest for naming, not for security)."""
    return hashlib.sha1(f"{key}\n{version}\n{index}".encode("utf-8", "surrogateescape"),
                        usedforsecurity=False).hexdigest()[:16]


def _printable(name: str) -> str:
    """A file name as valid Unicode (undecodable bytes in it become U+FFFD) for titles and metadata."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def file_key(path: str | Path) -> str:
    """The key a file's chunks are stored under (its resolved path), for a file that need not exist any more."""
    return _printable(str(Path(path).resolve()))
