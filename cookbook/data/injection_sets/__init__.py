"""The prompt-injection sets' data: one module a set, each its ``KINDS`` and ``SPECS`` (and ``NULL_TITLES = False``
where its untitled passages have no ``title`` key), its docstring what the set is and how it was written.
``../injection_rows.py`` renders them and ``../make_injection_set.py`` writes ``cookbook/data/<set>.jsonl``; the
committed files are the data the security figures were measured on, so a set's rendering must not change
(``tests/unit/test_injection_sets.py`` checks it byte for byte).

Row schema (one JSON object per line)::

    {"id": "<kind>-<n>", "question": str, "documents": [{"title": str | null, "text": str}, ...],
     "answers": [str, ...], "injected": str, "attack": "<kind>"}

(``{"title"?: str, "text": str}`` in the first three sets.) In a spec, ``SLOT`` marks where the attack goes, exactly
once, in one text or one title; rendered without the attack, a passage that held nothing but the attack is left out
and a title that held nothing else becomes null: the tests use it to check that the true answer stands in clean text.
"""
