"""``ask --store``'s search, started in a forked process beside the model's load (two independent pieces of a cold
ask's startup), or run here where a fork is not safe."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable

from .errors import GroundedRAGError


def search(store: str, question: str, k: int) -> list:
    """One search of a store: the hits ``ask --store`` answers from."""
    from .retrieval import ChromaStore

    return ChromaStore.open(store).search(question, k=k)


SEARCH_HERE = "search here"  # what the search process sends where the parent should search itself


def _search_into(results, parents_ends, questions, store: str, question: str, k: int) -> None:
    """The search process of :func:`start_search`: it opens the store, then waits for the question's embedding
    from the parent (which has torch and can embed it in a moment, where importing the encoder here would take
    seconds), and sends back the hits, or the user's error. Ctrl-C is the parent's to handle (it ends this process);
    a parent gone leaves nobody to send to, and this process ends quietly."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked over the fork: a Ctrl-C then is ignored
    for end in parents_ends:  # else a parent that dies leaves them open, and a send or a wait here hangs forever
        end.close()
    try:
        from .retrieval import ChromaStore

        found = ChromaStore.open(store)
        if found.collection.count() == 0:  # nothing to search: said before the parent embeds the question
            results.send((True, []))
            return
        try:
            vector = questions.recv()
        except EOFError:  # the parent is gone, or searches itself (its encoder failed)
            return
        message = (True, found.nearest(vector, k))
    except GroundedRAGError as exc:  # the user's (a store Chroma cannot open): raised where they asked
        message = (False, exc)
    except Exception:  # noqa: BLE001 - anything else is raised by the parent's own search, with its traceback
        message = (False, SEARCH_HERE)
    with contextlib.suppress(Exception):  # the parent is gone, or the hits do not pickle: it searches itself
        results.send(message)


def fork_is_safe() -> bool:
    """Forking copies one thread: safe on Linux before torch (its thread pools) or any other thread has started."""
    import threading

    return sys.platform == "linux" and "torch" not in sys.modules and threading.active_count() == 1


def start_search(store: str, question: str, k: int) -> tuple[Callable[[], list], Callable[[], None]]:
    """Start ``ask --store``'s search in a forked process, which imports Chroma and opens the store while this one
    imports torch and loads the model (two independent pieces of a cold ask's startup). Returns (the hits, when
    ready; an end to the search process). The hits embed the question here and send it over. Where a fork is not
    safe (:func:`fork_is_safe`), the search runs here when its hits are asked for; where the search process gives
    no answer (killed, out of memory, an error not the user's), it runs here too."""
    from .retrieval import check_search
    from .store_checks import crash_error, existing_store

    existing_store(store)  # a store that is not there, or a bad k, is said at once, not after the model has loaded
    check_search(question, k)
    if not fork_is_safe():
        return (lambda: search(store, question, k)), (lambda: None)
    import multiprocessing
    import signal

    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    questions, ask = context.Pipe(duplex=False)
    process = context.Process(target=_search_into, args=(send, (receive, ask), questions, store, question, k),
                              daemon=True)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # until the child ignores it
    try:
        process.start()
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    send.close()
    questions.close()

    def hits() -> list:
        from .encoders import embed_queries

        try:
            if not receive.poll():  # no early answer (an empty store, the user's error): the embedding is awaited
                vector = embed_queries([question])[0]  # an encoder that fails to load: searched (and said) here
                with contextlib.suppress(OSError):  # the process is gone: the receive below says so
                    ask.send(vector)
            ok, value = receive.recv()
        except Exception:  # noqa: BLE001 - no whole answer (the process died mid-send): search here
            ok, value = False, SEARCH_HERE
            process.join(timeout=5)
            crashed = crash_error(store, process.exitcode)  # a damaged store crashes Chroma here too: said instead
            if crashed is not None:
                raise crashed from None
        if ok:
            return value
        if isinstance(value, GroundedRAGError):
            raise value
        return search(store, question, k)

    def end() -> None:
        if process.is_alive():
            process.terminate()
        process.join()
        receive.close()
        ask.close()

    return hits, end
