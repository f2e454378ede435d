"""Every code block of the README, the docs (research notes included) and the integrations' READMEs runs as written.

Python blocks run in order, one namespace per file (as a reader pastes them), in a folder holding the README's
example files, after the README's own `grounded-rag ingest` has made `./store`; blocks that talk to
`http://127.0.0.1:8000` talk to a real `grounded-rag serve --store ./store` on a free loopback port. Bash blocks run each
`grounded-rag` command through the CLI, with these exceptions, each checked another way:

- `pip install` and `make` lines set up the environment this test runs in (CI runs `make test` from a clean clone);
- `grounded-rag eval` runs for hours: it runs with `--dry-run` (methods, options and data files checked; a benchmark
  slice absent from this checkout is replaced by the fixture of the same schema);
- `grounded-rag bench` takes minutes per method: its arguments are parsed;
- `grounded-rag serve` is started on a free port and stopped once it answers `/health` (`--ray` and Ray's own
  `serve run`: tests/integration/test_serving.py runs the Ray deployment).

Indented blocks (4 spaces) count as bash where they start with `grounded-rag`.
"""

from __future__ import annotations

import glob
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from grounded_rag.cli import build_parser, main

from .test_serving import free_port

ROOT = Path(__file__).resolve().parents[2]
FILES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md")),
         "integrations/langchain/README.md", "integrations/llama_index/README.md"]
FIXTURE_DATA = ROOT / "tests" / "fixtures" / "nq_swap_6.jsonl"
SERVER = "127.0.0.1:8000"


def code_blocks(text: str) -> list[tuple[str, str, int]]:
    """(language, code, line) of every fenced block, and of every indented block that is a grounded-rag command."""
    blocks, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        fence = re.match(r"^```(\w*)", lines[i])
        if fence:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            blocks.append((fence.group(1), "\n".join(lines[i + 1:end]), i + 1))
            i = end + 1
        elif lines[i].startswith("    grounded-rag ") and (i == 0 or not lines[i - 1].strip()):
            end = i
            while end < len(lines) and lines[end].startswith("    "):
                end += 1
            blocks.append(("bash", "\n".join(line[4:] for line in lines[i:end]), i + 1))
            i = end
        else:
            i += 1
    return blocks


def commands(script: str) -> list[list[str]]:
    """A bash block's commands as argument lists: continuation lines joined, comments dropped, globs expanded."""
    out = []
    for line in script.replace("\\\n", "").split("\n"):  # as bash: a backslash-newline vanishes
        args = shlex.split(line, comments=True)
        if args:
            out.append([match for arg in args for match in (sorted(glob.glob(arg)) if "*" in arg else [arg])])
    return out


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """A folder with the README's example files (and the eval sets the docs evaluate) and the store its ingest command
    makes."""
    folder = tmp_path_factory.mktemp("docs")
    shutil.copytree(ROOT / "cookbook" / "data" / "handbook", folder / "cookbook" / "data" / "handbook")
    for data in (ROOT / "cookbook" / "data").glob("*.jsonl"):
        shutil.copy(data, folder / "cookbook" / "data")
    here = os.getcwd()
    os.chdir(folder)
    try:
        assert main(["ingest", *sorted(glob.glob("cookbook/data/handbook/*.md")), "--store", "./store"]) == 0
    finally:
        os.chdir(here)
    return folder


def start_server(args: list[str]) -> tuple[subprocess.Popen, int]:
    """`grounded-rag serve` with the block's options on a free loopback port, once it answers /health."""
    port = free_port()
    args = [a for i, a in enumerate(args) if a != "--port" and (i == 0 or args[i - 1] != "--port")]
    proc = subprocess.Popen([sys.executable, "-m", "grounded_rag.cli", *args, "--port", str(port), "--log-level",
                             "warning"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 240
    while True:
        assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return proc, port
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.5)


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 0


def run_command(args: list[str]) -> None:
    if args[0] in ("pip", "make") or args[:2] == ["serve", "run"]:
        return  # the environment's setup, or Ray's own CLI (see the module docstring)
    assert args[0] == "grounded-rag", f"a code block runs {args[0]!r}; only grounded-rag commands are checked"
    argv = args[1:]
    if argv[0] == "eval":
        argv = [(str(ROOT / a) if (ROOT / a).is_file() else str(FIXTURE_DATA)) if a.startswith("../shared/data/") else a
                for a in argv]
        assert main([*argv, "--dry-run"]) == 0, args
    elif argv[0] == "bench":
        build_parser().parse_args(argv)
    elif argv[0] == "serve":
        if "--ray" not in argv:
            stop(start_server(argv)[0])
    else:
        assert main(argv) == 0, args


@pytest.mark.parametrize("name", FILES)
def test_every_code_block_runs_as_written(name, workspace, monkeypatch, capsys):
    text = (ROOT / name).read_text(encoding="utf-8")
    blocks = [(lang, code, line) for lang, code, line in code_blocks(text) if lang in ("python", "bash")]
    if not blocks:
        pytest.skip(f"{name} has no python or bash blocks")
    monkeypatch.chdir(workspace)
    server = None
    namespace: dict = {"__name__": "__main__"}
    try:
        for lang, code, line in blocks:
            if lang == "bash":
                for args in commands(code):
                    run_command(args)
                continue
            if SERVER in code:
                if server is None:
                    server = start_server(["serve", "--max-batch-size", "8", "--store", "./store"])
                code = code.replace(SERVER, f"127.0.0.1:{server[1]}")
            exec(compile(code, f"{name}:{line}", "exec"), namespace)  # noqa: S102 - the documented snippet
    finally:
        if server is not None:
            stop(server[0])
    capsys.readouterr()


def test_code_blocks_are_found_where_the_docs_have_them():
    """The extractor sees the README's blocks (the server's start among them), the results' and the research notes'
    indented commands (a test that finds none passes vacuously)."""
    readme = code_blocks((ROOT / "README.md").read_text())
    langs = [lang for lang, _, _ in readme]
    assert langs.count("python") >= 4 and langs.count("bash") >= 4
    assert any(lang == "bash" and code.startswith("grounded-rag serve") for lang, code, _ in readme)
    assert "docs/research/ablations.md" in FILES
    for page, least in (("results.md", 5), ("speed.md", 1), ("research/ablations.md", 5),
                        ("research/counterfactuals.md", 5)):
        found = code_blocks((ROOT / "docs" / page).read_text())
        assert sum(code.startswith("grounded-rag ") for _, code, _ in found) >= least, page
    assert commands('grounded-rag ask "a b" --doc x \\\n    --k 3  # comment') == [
        ["grounded-rag", "ask", "a b", "--doc", "x", "--k", "3"]]
