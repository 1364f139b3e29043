"""The five retrieval modes of the relevance study, each a small class with ``fit(documents)`` and ``search(query)``.

``search`` returns one score per corpus document (numpy array, corpus order; higher is better) and
the set of document positions it labels heuristic. :func:`assay.relevance.modes.runner.run_mode`
turns those into a TREC run with per-query latency.
"""
