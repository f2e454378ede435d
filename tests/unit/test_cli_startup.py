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


def _waits_after(code: str, **env: str) -> tuple[str, str]:
    """(OMP_WAIT_POLICY, GOMP_SPINCOUNT) as a fresh process sees them after ``code`` (none of the user's before)."""
    import os
    import subprocess
    import sys

    from grounded_rag.process import WAITS

    clean = {k: v for k, v in os.environ.items() if k not in WAITS} | env
    show = "\nimport os; print(os.environ.get('OMP_WAIT_POLICY'), os.environ.get('GOMP_SPINCOUNT'))"
    return tuple(subprocess.run([sys.executable, "-c", code + show], env=clean, capture_output=True, text=True,
                                check=True).stdout.split())


def test_importing_the_package_has_openmps_idle_threads_spin_briefly_unless_the_user_or_torch_chose_first():
    """A long spin holds a core another process wants: beside a busy process an answer took far longer;
    no spin at all slows an idle machine (cookbook/research/busy_machine.py). OpenMP reads it once, when it starts."""
    from grounded_rag.process import SHORT_SPIN

    assert _waits_after("import grounded_rag") == ("None", SHORT_SPIN)
    assert _waits_after("import grounded_rag, torch\nassert torch.get_num_threads() >= 1") == ("None", SHORT_SPIN)
    assert _waits_after("import grounded_rag", OMP_WAIT_POLICY="PASSIVE") == ("PASSIVE", "None"), "the user's stays"
    assert _waits_after("import grounded_rag", GOMP_SPINCOUNT="INFINITY") == ("None", "INFINITY")
    assert _waits_after("import torch\nimport grounded_rag") == ("None", "None"), "too late to matter: left alone"
