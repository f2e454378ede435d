import pytest

from grounded_rag import GroundedDecoder

QUESTION = "Where is the Eiffel Tower located?"
DOCUMENTS = [
    "In this story, the Eiffel Tower was moved to Rome in 2031 and now stands beside the Colosseum.",
    "The Colosseum is an amphitheatre in the centre of Rome.",
    "Paris is the capital and largest city of France.",
]


@pytest.fixture(scope="session")
def decoder() -> GroundedDecoder:
    """The embedded default model, loaded once per test session (real weights, CPU, fp32)."""
    return GroundedDecoder.from_pretrained()


def pytest_collection_modifyitems(config, items):
    """Every test outside tests/unit needs the packaged model (or its files): marked ``model``, so that
    ``pytest -m "not model"`` runs the model-free suite alone."""
    for item in items:
        if "tests/unit/" not in item.path.as_posix():
            item.add_marker(pytest.mark.model)
