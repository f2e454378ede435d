"""`grounded-rag ingest` into a real embedded Chroma, then `ask --store` retrieves with scores and decodes."""

from pathlib import Path

import pytest

from grounded_rag import InputError
from grounded_rag.cli import main
from grounded_rag.retrieval import ChromaStore, chunk_text

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


def test_wrong_store_path_and_bad_files_are_clear_errors(tmp_path, capsys):
    assert main(["ask", "q", "--store", str(tmp_path / "missing")]) == 2
    assert "no Chroma store" in capsys.readouterr().err
    assert main(["ingest", str(tmp_path / "nope.md"), "--store", str(tmp_path / "s")]) == 2
    assert "is not a file" in capsys.readouterr().err
    binary = tmp_path / "x.md"
    binary.write_bytes(b"\xff\xfe\x00\x81")
    assert main(["ingest", str(binary), "--store", str(tmp_path / "s")]) == 2
    assert "not UTF-8" in capsys.readouterr().err


def test_empty_store_means_no_documents(tmp_path, capsys):
    ChromaStore.open(tmp_path / "empty", create=True)
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
    from grounded_rag.retrieval import embed, embed_queries

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
