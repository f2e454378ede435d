import os
import socket

# No Hugging Face "Loading weights" bars in the test log: the CLI sets the same default for its users (cli.main).
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
# The suite's exact checks were written on the torch engine: it stays there (CLI subprocesses and notebook kernels
# inherit this) unless the run says otherwise. Tests of the llama.cpp backend ask for it by name
# (tests/integration/test_llama_*.py); GROUNDED_RAG_BACKEND=auto runs the whole suite as users get it.
os.environ.setdefault("GROUNDED_RAG_BACKEND", "torch")

import pytest  # noqa: E402

from grounded_rag import GroundedDecoder  # noqa: E402

def need_llama_cpp() -> None:
    """Skip a llama.cpp backend module where llama-cpp-python is not installed, except under ``make test`` (and so CI),
    which sets GROUNDED_RAG_REQUIRE_LLAMA: ``make setup`` built it there, and a missing build must fail, not skip."""
    if os.environ.get("GROUNDED_RAG_REQUIRE_LLAMA"):
        import llama_cpp  # noqa: F401
    else:
        pytest.importorskip("llama_cpp")


QUESTION = "Where is the Eiffel Tower located?"
DOCUMENTS = [
    "In this story, the Eiffel Tower was moved to Rome in 2031 and now stands beside the Colosseum.",
    "The Colosseum is an amphitheatre in the centre of Rome.",
    "Paris is the capital and largest city of France.",
]


@pytest.fixture(autouse=True)
def _no_server_to_ask_through(monkeypatch):
    """`grounded-rag ask` answers through a running `grounded-rag serve` it finds (GROUNDED_RAG_URL, else port 8000):
    in tests it finds one only where the test starts it, whatever runs on this machine's port 8000."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    monkeypatch.setenv("GROUNDED_RAG_URL", f"http://127.0.0.1:{port}")


@pytest.fixture(scope="session")
def decoder() -> GroundedDecoder:
    """The embedded default model, loaded once per test session (real weights, CPU, fp32)."""
    return GroundedDecoder.from_pretrained()


# The files that take longest in a whole run (test-seconds, `pytest --durations`) go to the workers first: a file's
# tests stay on one worker (`make test`'s --dist loadfile, with --no-loadscope-reorder so that xdist keeps this
# order), so a long file begun last leaves the others idle.
LONGEST_FIRST = tuple(f"tests/integration/test_{name}.py" for name in (
    "handbook", "engine", "methods_and_eval", "attribution", "cookbook", "docs", "serving", "graphs", "safety"))


def pytest_collection_modifyitems(config, items):
    """Every test outside tests/unit needs the packaged model (or its files): marked ``model``, so that
    ``pytest -m "not model"`` runs the model-free suite alone. The longest files first (``LONGEST_FIRST``), every
    file's tests in their own order."""
    for item in items:
        if "tests/unit/" not in item.path.as_posix():
            item.add_marker(pytest.mark.model)
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(LONGEST_FIRST)))
