"""Foundations every other package stands on: errors, reading and atomic writing, row validation,
params loading, provenance blocks, the stage runner, shared vocabularies and text helpers.

May import: nothing from assay except ``assay.__version__``. Everything else may import it.
"""
