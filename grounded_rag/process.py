"""The command's own process: its imports and model load run with the cyclic collector off, and it ends without the
collector's final passes, or, at Ctrl-C, killed by SIGINT as a shell expects. Only ever for a command's own process
(``grounded-rag ask``, ``serve``): a caller's collector is theirs."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator


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
