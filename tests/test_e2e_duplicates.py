"""End-to-end: a labelled pair copied under a new id (issue 35). Before, the judge stage stored two rows
under one reply key and probe, calibrate and sensitivity exited 1 on a "duplicate key" in a generated
file; now the copy shares the one reply, and a project that sets ``judge.duplicates: refuse`` is stopped
at the judge stage with both lines named."""

import json

import pytest
import yaml

from conftest import BIN, run

pytestmark = pytest.mark.e2e


def test_a_copied_pair_is_asked_once_and_the_judge_stages_pass_or_the_project_refuses_it(tmp_path):
    root = tmp_path / "p"
    run([str(BIN / "assay"), "init", str(root)], tmp_path)
    pairs = root / "data/pairs.jsonl"
    lines = pairs.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    pairs.write_text("\n".join([*lines, json.dumps({**first, "id": "zz-copy"})]) + "\n", encoding="utf-8")
    repro = run([str(BIN / "dvc"), "repro", "probe", "calibrate", "sensitivity"], root, check=False)
    assert repro.returncode == 0, repro.stdout + repro.stderr
    stored = [json.loads(t) for t in (root / "data/derived/judge/pairwise_v2.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(stored) == 2 * (len(lines) + 1)  # every pair keeps a row per order
    by = {(r["pair"], r["order"]): r for r in stored}
    for order in ("ab", "ba"):
        assert {k: v for k, v in by[("zz-copy", order)].items() if k != "pair"} == \
            {k: v for k, v in by[(first["id"], order)].items() if k != "pair"}
    assert json.loads((root / "metrics/calibration.json").read_text(encoding="utf-8"))["n"] == len(lines) + 1

    params = yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8"))
    params["judge"]["duplicates"] = "refuse"
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), encoding="utf-8")
    refused = run([str(BIN / "dvc"), "repro", "judge"], root, check=False)
    assert refused.returncode != 0
    assert (f"stage judge: data/pairs.jsonl:{len(lines) + 1}: field 'id': pair 'zz-copy' holds the same question, "
            f"facts and answers as pair {first['id']!r} on line 1, and judge.duplicates is refuse") in refused.stderr + refused.stdout
