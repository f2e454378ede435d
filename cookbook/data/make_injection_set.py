"""Write prompt-injection sets from their data: ``python cookbook/data/make_injection_set.py prose_injection_fifth``
writes ``cookbook/data/prose_injection_fifth.jsonl`` from ``injection_sets/prose_injection_fifth.py``; name several
sets, or none for every set. ``--check`` writes nothing and exits 1 where a committed file is not its data's
rendering. The committed files are what the security figures were measured on: after editing a set's data, its
rendering must stay the same unless the set itself is meant to change."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from injection_rows import SETS, load


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python cookbook/data/make_injection_set.py", description=__doc__)
    parser.add_argument("sets", nargs="*", metavar="SET", help=f"one of {', '.join(SETS)} (default: all)")
    parser.add_argument("--check", action="store_true", help="compare with the committed files, write nothing")
    ns = parser.parse_args(argv)
    unknown = [name for name in ns.sets if name not in SETS]
    if unknown:
        parser.error(f"unknown set {', '.join(unknown)}; choose from {', '.join(SETS)}")
    stale = []
    for name in ns.sets or SETS:
        generator = load(name)
        if not ns.check:
            generator.write()
            print(f"wrote {len(generator.rows())} rows to {generator.out}")
        elif not generator.out.is_file() or generator.out.read_bytes() != generator.render().encode("utf-8"):
            stale.append(name)
    if stale:
        print(f"not their data's rendering: {', '.join(stale)} (python cookbook/data/make_injection_set.py "
              f"{' '.join(stale)})")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
