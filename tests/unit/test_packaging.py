"""Packaging (issue 12): no binaries in the repository, a core that imports without either framework,
integration packages that declare exactly what they import."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from grounded_rag.config import SUPPORT_THRESHOLD

ROOT = Path(__file__).resolve().parents[2]
FRAMEWORKS = ("langchain", "langchain_core", "langchain_classic", "llama_index")


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in out.decode().split("\0") if name]


def test_no_binaries_are_tracked():
    binary = [str(p.relative_to(ROOT)) for p in tracked_files()
              if p.is_file() and (b"\0" in p.read_bytes()[:8192] or p.stat().st_size > 2_000_000)]
    assert not binary, f"binary or oversized files in git: {binary}"


def test_core_imports_and_runs_its_cli_without_either_framework():
    blocker = (
        "import sys, importlib.abc\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] in {FRAMEWORKS!r}: raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import grounded_rag, grounded_rag.decoder, grounded_rag.engine, grounded_rag.cli, grounded_rag.evaluation.harness\n"
        "from grounded_rag import DecodingConfig, GroundedDecoder\n"
        "assert DecodingConfig().method\n"
        "grounded_rag.cli.main(['eval', '--help'])\n"
    )
    run = subprocess.run([sys.executable, "-c", blocker], check=False, capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]


def imported_top_modules(package_dir: Path) -> set[str]:
    names: set[str] = set()
    for source in package_dir.rglob("*.py"):
        if "tests" in source.relative_to(package_dir).parts:
            continue
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
    return names


@pytest.mark.parametrize("integration", ["langchain", "llama_index"])
def test_integrations_declare_what_they_import(integration):
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+; the metadata is the same on every Python
    root = ROOT / "integrations" / integration
    meta = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {d.split(">")[0].split("=")[0].split("<")[0].strip() for d in meta["dependencies"]}
    imported = imported_top_modules(root)
    # a distribution is used when a module it provides is imported: langchain-core -> langchain_core,
    # llama-index-embeddings-huggingface -> llama_index.embeddings.huggingface (namespace package)
    provides = {dist: {dist.replace("-", "_"), dist.replace("-", ".").replace("llama.index", "llama_index")}
                for dist in declared}
    unused = [d for d, mods in provides.items()
              if not any(i == m or i.startswith(m + ".") for i in imported for m in mods)]
    assert not unused, f"{integration} declares dependencies it never imports: {unused}"
    third_party = {i.split(".")[0] for i in imported} - set(sys.stdlib_module_names) - {"typing_extensions"}
    own = {p.name for p in root.iterdir() if p.is_dir()} | {"grounded_rag", "llama_index"}
    undeclared = [m for m in third_party - own
                  if not any(mod.split(".")[0] == m for mods in provides.values() for mod in mods)]
    assert not undeclared, f"{integration} imports {undeclared} without declaring it"


def test_ask_help_offers_the_menu_only_with_every_default_shown():
    out = subprocess.run([sys.executable, "-m", "grounded_rag.cli", "ask", "--help"], capture_output=True, text=True,
                         check=True, env={"COLUMNS": "200", "PATH": ""}).stdout
    assert "--method {grounded_contrast,grounded,standard,cad,adacad,coiecd,cocoa,dola,knnlm}" in out
    assert "(default: grounded_contrast)" in out and f"(default: {SUPPORT_THRESHOLD})" in out and "(default: 64)" in out
    assert "pmi_words_cut" not in out and "grounded_pmi" not in out


def test_the_readme_is_a_short_guide():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    # 12 KB: the everyday tasks; options, results and the long forms live in docs/
    assert len(readme.encode()) <= 12_000
    assert "runs/" not in readme and "2026-" not in readme, "results and history belong in docs/ and CHANGELOG.md"


def test_bandit_finds_nothing_of_high_severity():
    """bandit over the package: no high-severity finding (digests used for naming say usedforsecurity=False)."""
    out = subprocess.run([sys.executable, "-m", "bandit", "-q", "-r", str(ROOT / "grounded_rag"), "-lll", "-f", "json"],
                         capture_output=True, text=True, check=False)
    import json

    report = json.loads(out.stdout)
    high = [f"{r['filename']}:{r['line_number']} {r['test_id']} {r['issue_text']}" for r in report["results"]
            if r["issue_severity"] == "HIGH"]
    assert not high, high
