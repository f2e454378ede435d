"""``grounded-rag serve``: its arguments, and the checks made before the model loads (the host's key, the port, the
store), then the single-process server or the Ray deployment."""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import InputError
from .settings import ServeSettings

#: the queue's and the budget's settings, each a flag of the same name (--max-request-cost, ...)
QUEUE_SETTINGS = ("max_queued", "max_request_cost", "large_request_cost", "max_queued_cost", "max_queue_wait_s",
                  "stream_stall_s")


def _port(value: str) -> int:
    """A TCP port; a larger number is refused here, where the OS would wrap it round to another port."""
    port = int(value)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a TCP port; use 0 to 65535")
    return port


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`grounded-rag serve`: the OpenAI-compatible server and its batching and Ray settings."""
    srv = sub.add_parser("serve", help="an OpenAI-compatible HTTP server with request batching")
    srv.add_argument("--model", default=None, help="packaged alias, .gguf file, HF id or folder")
    srv.add_argument("--backend", default="auto", choices=["auto", "torch", "llama_cpp"],
                     help="where the model runs: llama_cpp (a GGUF file on llama.cpp), torch, or auto (llama.cpp for "
                          "a GGUF on a CPU where llama-cpp-python is installed)")
    srv.add_argument("--host", default="127.0.0.1")
    srv.add_argument("--port", type=_port, default=8000, help="TCP port, 0 to 65535 (0: any free one)")
    srv.add_argument("--store", default=None, help="a folder made by `grounded-rag ingest`: requests without "
                     "documents are answered from the passages retrieved from it")
    srv.add_argument("--k", type=int, default=3, help="with --store: passages retrieved per question")
    srv.add_argument("--rate-limit", default=None, help="requests per client address, e.g. 60/minute (past it: 429 "
                     "with Retry-After); default: none")
    srv.add_argument("--served-model-name", default=None, help="the name clients pass as `model`")
    srv.add_argument("--batch-window-ms", type=float, default=15.0, help="how long a request waits for others")
    srv.add_argument("--max-batch-size", type=int, default=32)
    srv.add_argument("--max-batch-tokens", type=int, default=65536)
    srv.add_argument("--max-tokens-limit", type=int, default=1024, help="largest max_tokens a request may ask")
    _queue_args(srv)
    srv.add_argument("--log-level", default="info")
    srv.add_argument("--api-key", default=None, help="require this key from clients (Authorization: Bearer KEY); "
                     "better: set GROUNDED_RAG_API_KEY, which process listings do not show")
    srv.add_argument("--allow-unauthenticated", action="store_true",
                     help="serve a non-loopback --host without an API key")
    srv.add_argument("--ray", action="store_true", help="run as a Ray Serve deployment (needs the 'ray' extra)")
    srv.add_argument("--ray-address", default=None, help="a Ray cluster to join (default: RAY_ADDRESS or local)")
    srv.add_argument("--replicas", default="auto", help="with --ray: a number, or 'auto' for autoscaling")
    srv.set_defaults(func=cmd_serve)


def _loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only."""
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: it may resolve to any interface


def _check_port(host: str, port: int) -> None:
    """Bind ``host:port`` once and let it go, so that a port in use is said before the model loads, not after (the
    server binds it again, as uvicorn does, with SO_REUSEADDR)."""
    import socket

    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                              flags=socket.AI_PASSIVE)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError as exc:
        raise InputError(f"cannot listen on --host {host} --port {port}: {exc.strerror or exc} (another server on "
                         "that port? pass a free --port; a --host this machine has)") from None


def cmd_serve(ns: argparse.Namespace) -> int:
    if ns.api_key == "":  # --api-key "$KEY" with KEY unset: not a server without a key
        print("grounded-rag: --api-key is empty (an unset shell variable?); pass the key, or leave --api-key out",
              file=sys.stderr)
        return 2
    key = ns.api_key or os.environ.get("GROUNDED_RAG_API_KEY") or None
    if key is None and not _loopback(ns.host) and not ns.allow_unauthenticated:
        print(f"grounded-rag: --host {ns.host} lets other machines reach the server, and it has no API key. Set "
              "GROUNDED_RAG_API_KEY (or --api-key), or pass --allow-unauthenticated if anyone who can reach it may "
              "use it", file=sys.stderr)
        return 2
    _check_port(ns.host, ns.port)  # before the model loads, as the store below
    from ..process import startup

    with startup(ns.own_process and not ns.ray):  # Ray's replicas load the model in processes of their own
        try:
            from .server import build_app, run
            from .settings import ServeSettings
        except ImportError as exc:
            print(f"grounded-rag: serving needs the 'serve' extra ({exc.name} is missing): "
                  "pip install 'grounded-rag[serve]'", file=sys.stderr)
            return 2
        if ns.store is not None:  # before the model loads: a wrong folder or a damaged store is refused at once
            from ..store_checks import check_store_apart

            check_store_apart(ns.store)
        settings = ServeSettings(
            model=ns.model, backend=ns.backend, served_model_name=ns.served_model_name, batch_window_ms=ns.batch_window_ms,
            max_batch_size=ns.max_batch_size, max_batch_tokens=ns.max_batch_tokens,
            max_tokens_limit=ns.max_tokens_limit, api_key=key, store=ns.store, retrieve_k=ns.k,
            rate_limit=ns.rate_limit, **{name: getattr(ns, name) for name in QUEUE_SETTINGS},
        )
        app = None if ns.ray else build_app(settings)
    if ns.ray:
        from .ray_app import run_on_ray

        run_on_ray(settings, host=ns.host, port=ns.port, address=ns.ray_address, replicas=ns.replicas)
    else:
        run(app, settings, host=ns.host, port=ns.port, log_level=ns.log_level)
    return 0


def _queue_args(srv: argparse.ArgumentParser) -> None:
    """The budget per request and the queue's bounds (docs/serving.md, "Limits"), defaults from ServeSettings."""
    for name in QUEUE_SETTINGS:
        field = ServeSettings.model_fields[name]
        kind = float if name.endswith("_s") else int
        default = field.default
        shown = "" if default is None else f" (default: {default:g})"
        srv.add_argument("--" + name.replace("_", "-"), type=kind, default=default,
                         help=(field.description or name) + shown)
