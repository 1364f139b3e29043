"""Stage evaluate@VERSION: run one RAG version over the cases and score every case.

Usage: ``python stages/evaluate.py VERSION`` from the repository root. Reads params ``rag`` (``rag.block_mb``
bounds the reference system's memory and changes no output),
``inputs.cases``, ``inputs.corpus``, ``inputs.tools`` (the tool catalogue, when set), the split table
and the version's ``source`` (hashed into the provenance; see :class:`assay.rag.runner.VersionParams`);
writes ``data/derived/runs/VERSION.parquet`` (one row per case, sorted by id; per case and run with
``repeats``), ``metrics/rag/VERSION.json`` (dev and holdout figures),
``data/derived/replies/VERSION.jsonl`` (the replies of a system assay calls, replayed by the next run and by
``assay verify``; empty for the reference system and an answers file; see :mod:`assay.rag.reply_store`) and
``reports/provenance/evaluate_VERSION.json``.
"""

from __future__ import annotations

import sys



def main(version: str) -> None:
    from assay.artifacts.provenance import provenance
    from assay.artifacts.registry import RAG, RUN_TABLE, SPLIT_TABLE, SYSTEM_REPLIES, write_record
    from assay.core.io import sha256_file, sha256_path, sha256_tree, write_parquet
    from assay.core.params import load_section
    from assay.core.paths import input_paths
    from assay.data.cases import dataset_hash, load_cases
    from assay.data.corpus import load_corpus
    from assay.data.split import read_split
    from assay.data.tools import CATALOGUE_PATH, load_catalogue
    from assay.rag.version_figures import version_metrics
    from assay.rag.reply_store import CACHE_PATH, ReplyStore, replay_only, system_sha
    from assay.rag.runner import RagParams, check_source, results_table, run_version

    params = load_section("rag", RagParams)
    paths = input_paths()
    settings = params.version(version)
    check_source(version, settings)
    corpus = load_corpus(paths.corpus)
    tools = None if paths.tools is None else load_catalogue(paths.tools)
    cases = load_cases(paths.cases, corpus, tools, str(paths.tools or CATALOGUE_PATH), check_tools=True)
    inputs = {"cases": dataset_hash(cases), "cases_file": sha256_file(paths.cases), "corpus": sha256_tree(paths.corpus),
              "split": sha256_file(SPLIT_TABLE.path()), **({} if paths.tools is None else {"tools": sha256_file(paths.tools)})}
    inputs["source"] = sha256_path(settings.source)  # a DVC dep of this version too (dvc.yaml ${item.source})
    recorded = {"version": version, "k": params.k, "interval": params.interval, **settings.identity(),
                **({"repeats": settings.repeats} if settings.repeats > 1 else {})}
    if settings.called:
        identity = system_sha({**settings.identity(), **{key: inputs.get(key) for key in ("source", "corpus", "tools")}})
        recorded["system_sha"] = identity
        with ReplyStore(version, cache_path=None if replay_only() else CACHE_PATH) as store:
            results = run_version(version, settings, cases, corpus, params.k, tools, store, identity, params.block_mb)
            store.write()
        runs = len(cases) * settings.repeats
        print(f"evaluate@{version}: {store.asked} run(s) asked, {runs - store.asked} answered from stored "
              "replies", file=sys.stderr)
    else:
        results = run_version(version, settings, cases, corpus, params.k, tools, block_mb=params.block_mb)
        SYSTEM_REPLIES.write([], version=version)
    table = results_table(results)
    prov = provenance(settings=recorded, **inputs)
    write_parquet(RUN_TABLE.path(version=version), table,
                  {"assay_version": prov.assay_version, "inputs": prov.inputs, **prov.settings})
    write_record(RAG, version_metrics(table.to_pylist(), read_split(SPLIT_TABLE.path()), params.interval), prov, version=version)


if __name__ == "__main__":
    from assay.core.stage import run_stage

    if len(sys.argv) != 2:
        sys.exit("usage: python stages/evaluate.py VERSION")
    run_stage(f"evaluate@{sys.argv[1]}", lambda: main(sys.argv[1]))
