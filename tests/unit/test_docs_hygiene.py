"""The docs are documentation: each page says what a thing is, how to use it and the current figure with the command
behind it; history lives in CHANGELOG.md, research in docs/research/.

So no page of the README or docs/ names a scratch run folder (`runs/...`) or carries a date (a dated or run-named
figure is a lab notebook's); no docs page is over 25 KB; the README links every docs page and no research note; every
relative link resolves, to a file and to a heading; a figures table sits beside the command that produces it; the
README says how to start the server before it talks to one, with the server's own defaults, and states the package's
defaults as the code has them; every command a page gives names a module or script that is there; and CHANGELOG.md
reads by version, newest first."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
RESEARCH = DOCS / "research"
DOCS_PAGES = sorted(str(p.relative_to(ROOT)) for p in DOCS.rglob("*.md"))
USER_PAGES = sorted(str(p.relative_to(ROOT)) for p in DOCS.glob("*.md"))  # the pages the README sends users to
PAGES = ["README.md", *DOCS_PAGES]
LINKED = [*PAGES, "CHANGELOG.md", "integrations/langchain/README.md", "integrations/llama_index/README.md"]
RUN_PATH = re.compile(r"(?<![\w.-])runs/")
# A command a page gives to reproduce a figure: a module of the package, or a script of the repository.
SCRIPT = re.compile(r"python (?:-m (grounded_rag[\w.]*)|([\w/]+\.py))")
ISO_DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
MAX_PAGE_BYTES = 25_000
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
# A page whose tables hold measured figures: each such table's section carries the command that produced it.
FIGURE_PAGES = ["docs/results.md", "docs/speed.md", "docs/gpu.md",
                *(p for p in DOCS_PAGES if p.startswith("docs/research/") and not p.endswith(("README.md",
                                                                                                "design-notes.md")))]
COMMAND = re.compile(r"(^\s*|`)(grounded-rag |python3? -m |python3? (tests|cookbook)/|pytest |OMP_NUM_THREADS=\S+ python)")
FIGURE_ROW = re.compile(r"^\|.*\d\.\d")


def text(page: str) -> str:
    return (ROOT / page).read_text(encoding="utf-8")


def without_code(markdown: str) -> str:
    """The page with its fenced blocks blanked out (a '#' comment in a bash block is no heading, a link in code is
    none)."""
    return re.sub(r"(?ms)^```.*?^```", "", markdown)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces to hyphens."""
    heading = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    kept = "".join(c for c in heading if c in " -" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found, seen = set(), {}
    for heading in re.findall(r"(?m)^#{1,6} +(.+?) *#*$", without_code(page.read_text(encoding="utf-8"))):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def links(page: str) -> list[str]:
    return LINK.findall(without_code(text(page)))


def sections(markdown: str) -> list[tuple[str, str]]:
    """(heading, body) of each section at heading levels 1-3."""
    parts = re.split(r"(?m)^(?=#{1,3} )", without_code_keep_commands(markdown))
    return [(part.split("\n", 1)[0], part) for part in parts if part.strip()]


def without_code_keep_commands(markdown: str) -> str:
    """Fenced blocks kept (their commands count) but their '#' lines indented, so they split no section."""
    return re.sub(r"(?ms)^```.*?^```", lambda m: m.group(0).replace("\n#", "\n #"), markdown)


@pytest.mark.parametrize("page", [*PAGES, "CHANGELOG.md"])
def test_a_page_names_no_run_folder_and_no_date(page):
    lines = text(page).splitlines()
    found = [f"{page}:{n}: {line.strip()[:100]}" for n, line in enumerate(lines, 1)
             if RUN_PATH.search(line) or ISO_DATE.search(line)]
    assert not found, "results belong in docs/ with their command, history in CHANGELOG.md:\n" + "\n".join(found)


def test_the_patterns_catch_what_they_are_for():
    assert RUN_PATH.search("--out runs/swapf") and RUN_PATH.search("(`runs/pair.py`)")
    assert not RUN_PATH.search("--out results/nq_swap") and not RUN_PATH.search("reruns/x")
    assert ISO_DATE.search("the default until 2026-11-24") and not ISO_DATE.search("+12.0 [+6.0, +18.0]")
    assert slug("How trust's weight was chosen") == "how-trusts-weight-was-chosen"
    assert slug("NQ-Swap: `extractive` answers") == "nq-swap-extractive-answers"
    assert COMMAND.search("    grounded-rag eval --data x") and COMMAND.search("`pytest tests/x.py`")
    assert not COMMAND.search("the grounded-rag package")


@pytest.mark.parametrize("page", DOCS_PAGES)
def test_no_docs_page_is_over_25_kb(page):
    size = len(text(page).encode("utf-8"))
    assert size <= MAX_PAGE_BYTES, f"{page} is {size:,} bytes: move history to CHANGELOG.md, research to docs/research/"


def test_the_readme_links_every_docs_page_and_no_research_note():
    targets = {(ROOT / t.split("#")[0]).resolve() for t in links("README.md") if not re.match(r"\w+:", t)}
    missing = [page for page in USER_PAGES if (ROOT / page).resolve() not in targets]
    assert not missing, f"the README links no {missing}"
    research = sorted(str(t.relative_to(ROOT)) for t in targets if RESEARCH in t.parents)
    assert not research, f"the README sends users to research notes: {research}"


def test_every_research_note_is_reachable_from_the_methods_page():
    assert any(t.split("#")[0] == "research/README.md" for t in links("docs/methods.md"))
    index = {t.split("#")[0] for t in links("docs/research/README.md")}
    notes = [p.name for p in RESEARCH.glob("*.md") if p.name != "README.md"]
    assert notes and not [n for n in notes if n not in index], "docs/research/README.md lists every note"


@pytest.mark.parametrize("page", LINKED)
def test_every_relative_link_resolves_to_a_file_and_heading(page):
    broken = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, anchor = target.partition("#")
        file = (ROOT / page).parent / path if path else ROOT / page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading #{anchor} in {file.relative_to(ROOT)}")
    assert not broken, f"{page}:\n" + "\n".join(broken)


@pytest.mark.parametrize("page", FIGURE_PAGES)
def test_a_table_of_figures_sits_beside_its_command(page):
    bare = [heading for heading, body in sections(text(page))
            if any(FIGURE_ROW.match(line) for line in body.splitlines()) and not any(
                COMMAND.search(line) for line in body.splitlines())]
    assert not bare, f"{page}: sections with figures and no command that reproduces them: {bare}"


def readme_blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in re.finditer(r"(?ms)^```(\w*)\n(.*?)^```", text("README.md"))]


def test_the_readme_starts_the_server_before_it_talks_to_one():
    from grounded_rag.cli import build_parser

    defaults = build_parser().parse_args(["serve"])
    blocks = readme_blocks()
    starts = [i for i, (lang, code) in enumerate(blocks) if lang == "bash" and "grounded-rag serve" in code]
    talks = [i for i, (lang, code) in enumerate(blocks) if lang == "python" and "127.0.0.1:8000" in code]
    assert starts and talks and starts[0] < talks[0], "the README starts `grounded-rag serve` before its client code"
    assert (defaults.host, defaults.port) == ("127.0.0.1", 8000), "the README's clients call serve's default address"
    assert f"http://{defaults.host}:{defaults.port}" in text("README.md"), "the README names the server's address"


def test_the_readme_langchain_example_shows_its_sources():
    chains = [code for lang, code in readme_blocks() if lang == "python" and "langchain_grounded_rag" in code]
    assert chains and 'response_metadata["citations"]' in chains[0], "the LangChain example prints the citations"
    assert "StrOutputParser" not in chains[0], "a chain ending in a string parser drops the sources"


def test_the_readme_says_in_plain_words_what_its_terms_mean():
    readme = text("README.md")
    section = readme.split("### In plain words", 1)
    assert len(section) == 2, "the README has its 'In plain words' section"
    body = section[1].split("\n#", 1)[0]
    for term in ("a_t", "b_t", "trust", "question gate", "nats"):
        assert re.search(rf"(?m)^- \*\*[^*]*{re.escape(term)}", body), f"'In plain words' explains {term}"


def test_the_readme_states_the_defaults_the_code_has():
    from grounded_rag.config import DecodingConfig

    config, readme = DecodingConfig(), text("README.md")
    stated = dict(re.findall(r"`(support_threshold|relevance_margin)`,? \(?default ([0-9.]+)", readme))
    assert set(stated) == {"support_threshold", "relevance_margin"}, stated
    for name, value in stated.items():
        assert float(value) == getattr(config, name), f"README: {name} default {value}; the code: {getattr(config, name)}"


def test_the_changelog_reads_by_version_newest_first():
    changelog = text("CHANGELOG.md")
    versions = re.findall(r"(?m)^## (.+)$", changelog)
    assert versions and versions[0] == "Unreleased", "the current work comes first, as Unreleased"
    assert len(versions) == len(set(versions)), "each version once"
    kinds = {"Added", "Changed", "Fixed", "Removed", "Results", "Tests"}
    place, seen = None, set()
    for level, title in re.findall(r"(?m)^(#{2,4}) (.+?)\s*$", changelog):
        if level == "##" or title not in kinds:
            place, seen = title, set()  # a version, or a milestone of one, starts its own lists
        else:
            assert title not in seen, f"two {title} lists under {place!r}"
            seen.add(title)


@pytest.mark.parametrize("page", PAGES)
def test_every_command_a_page_gives_names_a_module_or_script_that_is_there(page):
    """A probe that moves out of the package (cookbook/research) takes its pages' commands with it."""
    text = (ROOT / page).read_text(encoding="utf-8")
    missing = [m.group(0) for m in SCRIPT.finditer(text)
               if not (ROOT / (m.group(2) or m.group(1).replace(".", "/") + ".py")).is_file()
               and not (m.group(1) and (ROOT / m.group(1).replace(".", "/") / "__main__.py").is_file())]
    assert not missing, f"{page}: no such module or script: {missing}"
