"""The release decision: gate checks against the plan, input freshness (recorded input hashes
against the current inputs), judge calibration staleness, gathering it all from a repository, and
the one-page summary.

May import: every package below it (``core``, ``stats``, ``artifacts``, ``data``, ``judge``, ``rag``).
"""
