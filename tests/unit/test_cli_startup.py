"""The CLI's startup: imports and the model's load run without the cyclic collector, in the command's own process
only (model-free: the context is exercised around plain objects)."""

import gc

import pytest

from grounded_rag.process import startup as _startup
from grounded_rag.errors import InputError


@pytest.fixture(autouse=True)
def _collector_restored():
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    (gc.enable if enabled else gc.disable)()


def test_startup_runs_without_the_collector_then_freezes_what_it_made():
    gc.enable()
    gc.unfreeze()
    with _startup(own_process=True):
        assert not gc.isenabled()
        kept = [[i] for i in range(1000)]  # long-lived objects, as imports and a model make
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(kept)


def test_startup_called_from_code_leaves_the_callers_collector_alone():
    gc.enable()
    gc.unfreeze()
    with _startup(own_process=False):
        assert gc.isenabled()
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_startup_gives_the_collector_back_after_an_error():
    gc.enable()
    with pytest.raises(InputError), _startup(own_process=True):
        raise InputError("no such model")
    assert gc.isenabled()


def test_startup_keeps_a_collector_that_was_off_off():
    gc.disable()
    with _startup(own_process=True):
        pass
    assert not gc.isenabled()
