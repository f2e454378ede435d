"""The process the package runs in. A command's own process (``grounded-rag ask``, ``serve``): its imports and model
load run with the cyclic collector off, and it ends without the collector's final passes, or, at Ctrl-C, killed by
SIGINT as a shell expects (a caller's collector is theirs). Any process: OpenMP's idle threads spin only briefly
(:func:`short_thread_waits`)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator


WAITS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")  # how OpenMP's idle threads wait: the standard's, GNU OpenMP's
SHORT_SPIN = "3000"  # spin rounds before an idle thread sleeps


def short_thread_waits() -> None:
    """Have OpenMP's idle threads spin briefly, then sleep (``GOMP_SPINCOUNT``: GNU OpenMP, the runtime of torch's and
    llama.cpp's Linux builds), unless the user chose how they wait or a runtime has already started (torch imported
    first). torch's operators and llama.cpp's graph each run as a team of threads, and by default a team's idle
    threads spin some 300,000 rounds between parallel regions: where another process wants a core (a busy laptop, a
    shared server or CI machine), a spinning thread holds it, each operator waits for the team member it pushed off,
    and an answer took far longer; asleep at once (``OMP_WAIT_POLICY=PASSIVE``), every operator pays for
    waking its team, on an idle machine too. A short spin catches the next operator and yields a wanted core
    (docs/speed.md, "A busy machine"). OpenMP reads it once, when it starts: so it is set on importing the package."""
    if not set(WAITS) & set(os.environ) and "torch" not in sys.modules and "llama_cpp" not in sys.modules:
        os.environ["GOMP_SPINCOUNT"] = SHORT_SPIN


@contextlib.contextmanager
def startup(own_process: bool) -> Iterator[None]:
    """Imports and the model's load with the cyclic collector off, and what they made frozen out of its way after:
    they make millions of long-lived objects and next to no cycles, and the collector's passes over them cost about
    a second of a cold ``ask`` (the imports, the load and the first answer's full pass). Only in the command's own
    process: a caller's collector is theirs."""
    import gc

    if not own_process or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def skip_final_collection() -> None:
    """Leave every object to the end of the process rather than to the collector's passes at shutdown, which walk
    torch's and transformers' millions of objects (a second of a cold ``ask``); exit handlers, stream flushes and
    module teardown still run. Only for the command's own process: a caller's collector is theirs."""
    import gc

    gc.freeze()


def end_by_sigint() -> None:
    """Ctrl-C at a shell: end without a traceback, killed by SIGINT as a shell expects (a loop of commands stops)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # closed or broken: nothing more to show there
            stream.flush()
    print(file=sys.stderr, flush=True)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)
