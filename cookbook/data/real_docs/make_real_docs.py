"""Write the real-document set (SOURCE.md says what it is) from local git mirrors of its repositories.

``python cookbook/data/real_docs/make_real_docs.py MIRRORS`` where MIRRORS holds ``alphagov+gds-way/repo``,
``sourcegraph+handbook/repo``, ``18F+handbook/repo`` and ``mkdocs+mkdocs/repo`` (bare git directories). Each file falls
in ``validation/`` or ``test/`` by a hash of its path, so a file is never in both; files are taken in hash order until
a split holds :data:`CAP` bytes of a source, each cut at a blank line within its first :data:`FILE_CAP` bytes (long
references and release notes would otherwise fill a split alone). Run again, it writes the same files.

``make_real_docs.py --heldout MIRRORS`` writes ``heldout/``: sources no setting was chosen on
(:data:`HELDOUT`, from ``PagerDuty+incident-response-docs/repo``, ``prometheus-operator+runbooks/repo`` and
``google+eng-practices/repo``), each file whole in hash order (cut as above) until the source holds its cap.

``make_real_docs.py --heldout2 MIRRORS`` writes ``heldout2/`` in the same way from a second set of sources
(:data:`HELDOUT2`, from ``artsy+README/repo``, ``github+opensource.guide/repo``,
``ministryofjustice+cloud-platform/repo`` and ``helm+helm-www/repo``).
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

CAP = 44_000  # bytes of one source in one split
FILE_CAP = 8_000  # bytes of one file
MIN_BYTES = 600  # shorter files are link lists and stubs
SOURCES = {  # name: (mirror, commit, folder, pattern)
    "gds-way": ("alphagov+gds-way", "627911cd6b5685654df03c949fabaaa51d8b07c5", "source/",
                r"^source/(?:standards|manuals)/.*\.html\.md\.erb$"),
    "sourcegraph-handbook": ("sourcegraph+handbook", "5752928b213a3ddbc7cee4459524f404a5b96fb4", "content/",
                             r"^content/.*\.md$"),
    "18f-handbook": ("18F+handbook", "1e4955634d0369f17e5bbc0ebbf8f62e2a3dfe4b", "pages/", r"^pages/.*\.md$"),
    "mkdocs-docs": ("mkdocs+mkdocs", "2862536793b3c67d9d83c33e0dd6d50a791928f8", "docs/", r"^docs/.*\.md$"),
}

# Sources measured once, after the settings were chosen (SOURCE.md): name: (mirror, commit, folder, pattern, cap bytes)
HELDOUT = {
    "pagerduty-incident-response": ("PagerDuty+incident-response-docs", "e8a6182e031ee14526e41eadc42f3b44aaa3397e",
                                    "docs/", r"^docs/.*\.md$", 100_000),
    "prometheus-runbooks": ("prometheus-operator+runbooks", "a685d14cf5128bb30e2bf935c3983decd772d885",
                            "content/", r"^content/.*\.md$", 100_000),
    "google-eng-practices": ("google+eng-practices", "3bb3ec25b3b0199f4940b1aa75f0ac5c5753301c", "review/",
                             r"^review/.*\.md$", 80_000),
}
HELDOUT_MIN_BYTES = 200  # a runbook page is short

# A second held-out set, written as HELDOUT is; folder "." is the repository's root
HELDOUT2 = {
    "artsy-readme": ("artsy+README", "61095adde845f0a48715f2be1b086cd436a99651", ".",
                     r"^(?!\.github/|LICENSE).*\.md$", 100_000),
    "opensource-guide": ("github+opensource.guide", "ebc9678e39b55ff5e5c8801d1960904692188e90", "_articles/",
                         r"^_articles/[^/]+\.md$", 100_000),  # English: the translations are in subfolders
    "moj-cloud-platform-runbooks": ("ministryofjustice+cloud-platform", "7f879f3af6cd39f8711ec99ee3b4d2163ff54024",
                                    "source/", r"^source/.*\.html\.md\.erb$", 100_000),
    "helm-docs": ("helm+helm-www", "227f41447a683545325e87aedf10c67096d11004", "docs/",
                  r"^docs/(?!helm/).*\.mdx?$", 100_000),  # docs/helm/ is the generated command reference
}


def split_of(source: str, path: str) -> str:
    """The split a file falls in, by a hash of its source and path: about half each."""
    return "test" if _digest(source, path)[0] in "01234567" else "validation"


def _digest(source: str, path: str) -> str:
    return hashlib.sha256(f"{source}:{path}".encode()).hexdigest()


def _git(mirror: Path, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={mirror}", *args], check=True, capture_output=True,
                          text=True).stdout


def cut(text: str) -> str:
    """The file's first :data:`FILE_CAP` bytes, cut at a blank line."""
    if len(text.encode()) <= FILE_CAP:
        return text
    head = text.encode()[:FILE_CAP].decode(errors="ignore")
    return head[:head.rfind("\n\n")].rstrip() + "\n"


def flat_name(path: str, folder: str) -> str:
    """A file name from the path under the source's folder: ``standards/logging.html.md.erb`` ->
    ``standards-logging.md``."""
    name = path.removeprefix(folder)
    name = re.sub(r"\.html\.md\.erb$|\.mdx?$", "", name)
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name.replace("/", "-")).strip("-") + ".md"


def write(mirrors: Path, out: Path) -> None:
    for source, (mirror, commit, folder, pattern) in SOURCES.items():
        git = mirrors / mirror / "repo"
        paths = [p for p in _git(git, "ls-tree", "-r", "--name-only", commit, folder).splitlines()
                 if re.match(pattern, p)]
        used = {"validation": 0, "test": 0}
        for path in sorted(paths, key=lambda p: _digest(source, p)):
            split = split_of(source, path)
            text = cut(_git(git, "show", f"{commit}:{path}"))
            size = len(text.encode())
            if size < MIN_BYTES or used[split] + size > CAP:
                continue
            used[split] += size
            target = out / split / source / flat_name(path, folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        print(source, used)


def write_heldout(mirrors: Path, out: Path, sources: dict[str, tuple[str, str, str, str, int]] = HELDOUT,
                  split: str = "heldout") -> None:
    """Every held-out source's files, whole but for :func:`cut`, in hash order until the source's cap."""
    for source, (mirror, commit, folder, pattern, cap) in sources.items():
        git = mirrors / mirror / "repo"
        paths = [p for p in _git(git, "ls-tree", "-r", "--name-only", commit, folder).splitlines()
                 if re.match(pattern, p)]
        used = 0
        for path in sorted(paths, key=lambda p: _digest(source, p)):
            text = cut(_git(git, "show", f"{commit}:{path}"))
            size = len(text.encode())
            if size < HELDOUT_MIN_BYTES or used + size > cap:
                continue
            used += size
            target = out / split / source / flat_name(path, folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        print(source, used)


if __name__ == "__main__":
    if sys.argv[1] == "--heldout":
        write_heldout(Path(sys.argv[2]), Path(__file__).parent)
    elif sys.argv[1] == "--heldout2":
        write_heldout(Path(sys.argv[2]), Path(__file__).parent, HELDOUT2, "heldout2")
    else:
        write(Path(sys.argv[1]), Path(__file__).parent)
