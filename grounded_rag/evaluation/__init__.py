"""Matched-protocol evaluation: data, metrics, paired bootstrap, and the ``grounded-rag eval`` harness."""
