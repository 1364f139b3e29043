import random

import pytest

from assay.data.cases import CaseRecord
from assay.data.leakage import leakage_report
from assay.data.leakage.engine import ENV_SCHEDULER, DaskEngine, LocalEngine, engine_for
from assay.data.leakage.report import ParaphraseParams
from assay.data.leakage.sources import SourceTexts

from conftest import case

import distributed  # noqa: E402  (a test dependency, pinned in constraints.txt: a missing one fails, never skips)


def random_data(seed, n_cases=300, n_lines=1500):
    rnd = random.Random(seed)
    vocab = [f"w{i}" for i in range(40)]

    def text():
        return " ".join(rnd.choices(vocab, k=rnd.randint(1, 9)))

    cases = [CaseRecord.model_validate(case(f"c{i:04d}", question=text())) for i in range(n_cases)]
    sides = {c.id: rnd.choice(["dev", "holdout"]) for c in cases}
    sources = {"a": [text() for _ in range(n_lines)], "b": [text() for _ in range(n_lines // 3)]}
    return cases, sides, sources


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


@pytest.mark.parametrize("seed", [1, 2])
def test_dask_gives_the_same_report_as_local(client, seed):
    cases, sides, sources = random_data(seed)
    local = leakage_report(cases, sides, SourceTexts(sources, chunk_lines=97), 0.5)
    assert len(local["sources"]) > 50  # the data has matches to compare
    with distributed.get_task_stream(client) as stream:
        remote = leakage_report(cases, sides, SourceTexts(sources, chunk_lines=97), 0.5,
                                engine=DaskEngine(client=client, window=3))
    assert remote == local
    # every chunk ran as a task on the cluster: ceil(1500 / 97) + ceil(500 / 97) = 16 + 6
    assert sum("_join_chunk" in t["key"] for t in stream.data) == 22


def test_dask_carries_the_paraphrase_matcher_to_workers(client):
    cases, sides, sources = random_data(3, n_cases=60, n_lines=200)
    para = ParaphraseParams(threshold=0.6)
    local = leakage_report(cases, sides, SourceTexts(sources, chunk_lines=50), 0.5, paraphrase=para)
    remote = leakage_report(cases, sides, SourceTexts(sources, chunk_lines=50), 0.5, paraphrase=para,
                            engine=DaskEngine(client=client))
    assert remote == local and local["paraphrase"]["sources"]


def test_engine_from_params_and_environment(monkeypatch):
    monkeypatch.delenv(ENV_SCHEDULER, raising=False)
    assert isinstance(engine_for("local", "tcp://ignored:8786"), LocalEngine)
    assert engine_for("dask", "tcp://from-params:8786").address == "tcp://from-params:8786"
    assert engine_for("dask").address is None  # starts a LocalCluster when used
    monkeypatch.setenv(ENV_SCHEDULER, "tcp://from-env:8786")
    assert engine_for("dask", "tcp://from-params:8786").address == "tcp://from-env:8786"
