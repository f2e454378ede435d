"""The docs show current results, each with the command that reproduces it; history lives in CHANGELOG.md.

So no page of the README or docs/ names a scratch run folder (`runs/...`) or carries a date: a dated or
run-named figure is a lab notebook's, and belongs in the changelog or nowhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]
RUN_PATH = re.compile(r"(?<![\w.-])runs/")
# A command a page gives to reproduce a figure: a module of the package, or a script of the repository.
COMMAND = re.compile(r"python (?:-m (grounded_rag[\w.]*)|([\w/]+\.py))")
ISO_DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")


@pytest.mark.parametrize("page", PAGES)
def test_a_page_names_no_run_folder_and_no_date(page):
    lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
    found = [f"{page}:{n}: {line.strip()[:100]}" for n, line in enumerate(lines, 1)
             if RUN_PATH.search(line) or ISO_DATE.search(line)]
    assert not found, "results belong in docs/ with their command, history in CHANGELOG.md:\n" + "\n".join(found)


def test_the_patterns_catch_what_they_are_for():
    assert RUN_PATH.search("--out runs/swapf") and RUN_PATH.search("(`runs/pair.py`)")
    assert not RUN_PATH.search("--out results/nq_swap") and not RUN_PATH.search("reruns/x")
    assert ISO_DATE.search("the default until 2026-11-24") and not ISO_DATE.search("+12.0 [+6.0, +18.0]")


@pytest.mark.parametrize("page", PAGES)
def test_every_command_a_page_gives_names_a_module_or_script_that_is_there(page):
    """A probe that moves out of the package (cookbook/research) takes its pages' commands with it."""
    text = (ROOT / page).read_text(encoding="utf-8")
    missing = [m.group(0) for m in COMMAND.finditer(text)
               if not (ROOT / (m.group(2) or m.group(1).replace(".", "/") + ".py")).is_file()
               and not (m.group(1) and (ROOT / m.group(1).replace(".", "/") / "__main__.py").is_file())]
    assert not missing, f"{page}: no such module or script: {missing}"
