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

``make_real_docs.py --heldout3 MIRRORS`` writes ``heldout3/`` in the same way from a third set of sources
(:data:`HELDOUT3`, from ``alphagov+govuk-developer-docs/repo``, ``thoughtbot+guides/repo``,
``kubernetes+community/repo`` and ``Netflix+dispatch/repo``), but for files that are mostly code, tables or front
matter (:func:`prose_share` under :data:`PROSE_SHARE`).
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


# A third held-out set, written as HELDOUT2 is but for files that are mostly code, tables or front matter
HELDOUT3 = {
    "govuk-developer-manual": ("alphagov+govuk-developer-docs", "972d1b4410ffd165f2f3e889eda30bcf7d1cc6b3",
                               "source/manual/", r"^source/manual/.*\.html\.md(?:\.erb)?$", 100_000),
    "thoughtbot-guides": ("thoughtbot+guides", "640b2cbad7abf926febd713647dea8f1f2cce402", ".",
                          r"^(?!\.github/|_template/).*\.md$", 100_000),  # _template/ is a stub to copy
    "kubernetes-contributor-guide": ("kubernetes+community", "24e7d8f5409c1a0121394a613746e524f781e044",
                                     "contributors/guide/",
                                     r"^contributors/guide/(?:[^/]+|contributor-cheatsheet/README)\.md$",
                                     100_000),  # English: the cheatsheet's translations are README-xx.md
    "dispatch-docs": ("Netflix+dispatch", "dd2837e82a0bf5565b1b4b4b91ea30b7262d4061", "docs/docs/",
                      r"^docs/docs/(?!license\.mdx$).*\.mdx?$", 100_000),  # license.mdx is the Apache licence
}
PROSE_SHARE = 0.5  # of a file's bytes, at least, outside front matter, code blocks and table rows (HELDOUT3)

HELDOUT_SETS = {  # option: (folder, sources, least prose share of a file)
    "--heldout": ("heldout", HELDOUT, 0.0),
    "--heldout2": ("heldout2", HELDOUT2, 0.0),
    "--heldout3": ("heldout3", HELDOUT3, PROSE_SHARE),
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
    name = re.sub(r"\.html\.md(?:\.erb)?$|\.mdx?$", "", name)
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name.replace("/", "-")).strip("-") + ".md"


def prose_share(text: str) -> float:
    """The share of the text's bytes (blank lines aside) outside its front matter, its fenced code blocks and its
    table rows."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":  # front matter, up to its closing line
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), len(lines) - 1)
        lines = [""] * (end + 1) + lines[end + 1:]
    prose = total = 0
    fence = ""
    for line in lines:
        stripped = line.strip()
        size = len(stripped.encode())
        total += size
        if fence:
            fence = "" if stripped.startswith(fence) else fence
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif not stripped.startswith("|"):
            prose += size
    return prose / total if total else 0.0


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
                  split: str = "heldout", min_prose: float = 0.0) -> None:
    """Every held-out source's files, whole but for :func:`cut`, in hash order until the source's cap, but for
    those whose :func:`prose_share` is under ``min_prose``."""
    for source, (mirror, commit, folder, pattern, cap) in sources.items():
        git = mirrors / mirror / "repo"
        paths = [p for p in _git(git, "ls-tree", "-r", "--name-only", commit, folder).splitlines()
                 if re.match(pattern, p)]
        used = 0
        for path in sorted(paths, key=lambda p: _digest(source, p)):
            text = cut(_git(git, "show", f"{commit}:{path}"))
            size = len(text.encode())
            if size < HELDOUT_MIN_BYTES or used + size > cap or prose_share(text) < min_prose:
                continue
            used += size
            target = out / split / source / flat_name(path, folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        print(source, used)


if __name__ == "__main__":
    if sys.argv[1] in HELDOUT_SETS:
        folder, sources, min_prose = HELDOUT_SETS[sys.argv[1]]
        write_heldout(Path(sys.argv[2]), Path(__file__).parent, sources, folder, min_prose)
    else:
        write(Path(sys.argv[1]), Path(__file__).parent)
