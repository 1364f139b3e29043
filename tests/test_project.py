"""`assay init` and `assay add`: what a new project holds, what is refused, and that nothing the user
wrote is overwritten; the version pin refuses a stage under another installed assay."""

from __future__ import annotations

import json
import subprocess

import pytest
import yaml

from assay.cli import main
from assay.core.errors import AssayError
from assay.core.pin import VersionMismatch, check_pin, pinned_version
from assay.pipeline.parts import project_parts
from assay.project.init import ProjectError, add_part, init_project

from conftest import BIN, run


def test_a_minimal_core_judge_project_holds_exactly_its_parts(tmp_path):
    result = init_project(tmp_path / "p", ["judge"], "minimal", setup=False)
    root = result.root
    assert result.parts == ("core", "judge") and result.kept == []
    params = yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8"))
    assert params["parts"] == ["core", "judge"]
    assert set(params) == {"parts", "inputs", "plan", "split", "leakage", "agreement", "judge", "rag", "compare", "gate"}
    assert params["rag"]["versions"]["mine"] == {"system": "callable", "callable": "systems.my_rag:answer",
                                                 "source": "systems/my_rag.py", "settings": {"min_overlap": 1}}
    assert (root / "requirements.txt").read_text(encoding="utf-8").splitlines()[-1] == "assay-eval==" + pinned_version(root)
    assert (root / "constraints.txt").is_file()
    assert "review_agreement" not in (root / "data/plan.yaml").read_text(encoding="utf-8")  # no queue part
    assert "#@" not in (root / "data/plan.yaml").read_text(encoding="utf-8")
    cases = (root / "data/cases.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(cases) == 30 and {json.loads(c)["lang"] for c in cases} == {"en", "bn"}
    stages = yaml.safe_load((root / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    assert "calibrate" in stages and "review" not in stages and "retrieve" not in stages
    workflow = (root / ".github/workflows/assay.yml").read_text(encoding="utf-8")
    assert "assay ci" in workflow and "pip install --quiet -r requirements.txt -c constraints.txt" in workflow
    assert "-e ." not in workflow


def test_a_non_empty_folder_is_refused_and_force_keeps_every_existing_file(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    (root / "params.yaml").write_text("mine: true\n", encoding="utf-8")
    with pytest.raises(ProjectError, match=r"is not empty \(params.yaml\) \(fix: .*--force"):
        init_project(root, setup=False)
    assert (root / "params.yaml").read_text(encoding="utf-8") == "mine: true\n"
    result = init_project(root, force=True, setup=False)
    assert result.kept == ["params.yaml"] and "dvc.yaml" in result.written
    assert (root / "params.yaml").read_text(encoding="utf-8") == "mine: true\n"


def test_unknown_parts_and_examples_are_one_clean_line_from_the_command(tmp_path, capsys):
    assert main(["init", str(tmp_path / "p"), "--parts", "core,jugde"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("assay init: --parts: field 'parts': 'jugde' is not a part (fix: choose from core, judge")
    assert not (tmp_path / "p").exists()
    with pytest.raises(ProjectError, match="'tiny' is not an example"):
        init_project(tmp_path / "q", example="tiny", setup=False)


def test_add_appends_the_part_and_never_touches_the_users_data(tmp_path):
    root = init_project(tmp_path / "p", ["core"], "minimal", setup=False).root
    params = root / "params.yaml"
    params.write_text(params.read_text(encoding="utf-8").replace("holdout_share: 0.3", "holdout_share: 0.4"),
                      encoding="utf-8")
    (root / "data/cases.jsonl").write_text((root / "data/cases.jsonl").read_text(encoding="utf-8")[:400].rsplit("\n", 1)[0]
                                           + "\n", encoding="utf-8")
    mine = (root / "data/cases.jsonl").read_bytes()
    (root / "data").joinpath("rubric.yaml").write_text("# my rubric\n", encoding="utf-8")
    result = add_part(root, "queue", "demo")
    assert result.parts == ("core", "queue")
    assert "data/rubric.yaml" in result.kept and "data/reviews/demo.jsonl" in result.written
    assert (root / "data/rubric.yaml").read_text(encoding="utf-8") == "# my rubric\n"
    assert (root / "data/cases.jsonl").read_bytes() == mine
    data = yaml.safe_load(params.read_text(encoding="utf-8"))
    assert data["parts"] == ["core", "queue"] and data["split"]["holdout_share"] == 0.4 and "review" in data
    assert project_parts(params) == ("core", "queue")
    assert "review" in yaml.safe_load((root / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    assert add_part(root, "queue").written == []  # already there: nothing to do
    assert add_part(root, "study", "minimal").parts == ("core", "queue", "retrieval", "study")


def test_the_study_access_log_is_ignored_by_git_in_a_study_project(tmp_path):
    root = init_project(tmp_path / "p", ["study"], "minimal").root
    log = root / "data/relevance/evidence.synthetic/access.log"
    assert not log.exists()  # the demo's log is never copied
    log.write_text('{"by": "study check"}\n', encoding="utf-8")
    assert run(["git", "check-ignore", "-q", str(log)], root, check=False).returncode == 0
    assert "access.log" not in run(["git", "status", "--porcelain", "--untracked-files=all"], root).stdout


def test_add_queue_without_example_wires_no_example_data(tmp_path, capsys):
    root = init_project(tmp_path / "p", ["core"], "minimal", setup=False).root
    assert main(["add", "queue", "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert "assay queue export NAME" in out and "data/reviews/NAME.jsonl" in out
    params = yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8"))
    assert params["review"]["snapshots"] == []
    assert sorted(p.name for p in (root / "data/reviews").iterdir()) == ["README.md"]
    assert not (root / "data/queues").exists() and (root / "data/rubric.yaml").exists()
    assert yaml.safe_load((root / "dvc.yaml").read_text(encoding="utf-8"))["stages"]["review"]["foreach"] == "${review.snapshots}"
    judged = init_project(tmp_path / "j", ["judge"], "minimal", setup=False).root
    add_part(judged, "queue")
    params = yaml.safe_load((judged / "params.yaml").read_text(encoding="utf-8"))
    assert params["review"]["snapshots"] == [] and params["ppi"]["reviews"] == [] and params["ppi"]["min_labelled"] == 10


@pytest.mark.e2e
def test_add_queue_without_example_then_repro_leaves_the_training_files_empty(tmp_path):
    """No snapshot yet: the training stage still writes metrics/review/.snapshots.json, so the folder the gate
    depends on exists, dvc repro runs to the end and the gate decides (0 or 1, never 2)."""
    root = tmp_path / "p"
    run([str(BIN / "assay"), "init", str(root)], tmp_path)
    run([str(BIN / "assay"), "add", "queue"], root)
    run([str(BIN / "dvc"), "repro", "-q"], root)
    for name in ("sft.jsonl", "dpo.jsonl", "dpo_trl.jsonl"):
        assert (root / "reports/training" / name).read_text(encoding="utf-8") == ""
    assert json.loads((root / "metrics/review/.snapshots.json").read_text(encoding="utf-8")) == {"snapshots": 0}
    assert json.loads((root / "metrics/ppi.json").read_text(encoding="utf-8"))
    gate = run([str(BIN / "assay"), "gate"], root, check=False)
    assert gate.returncode in (0, 1), gate.stdout + gate.stderr


@pytest.mark.e2e
@pytest.mark.parametrize("part", ["judge", "retrieval"])
def test_add_a_part_without_example_then_repro_ends_with_the_gates_verdict(tmp_path, part):
    """`assay add PART` (no --example) on a core project, then the real dvc repro: no crash, the gate decides."""
    root = tmp_path / "p"
    run([str(BIN / "assay"), "init", str(root), "--parts", "core"], tmp_path)
    run([str(BIN / "dvc"), "repro", "-q"], root)
    run(["git", "add", "-A"], root)
    run(["git", "commit", "-qm", "core"], root)
    said = run([str(BIN / "assay"), "add", part], root).stdout
    assert f"uses core, {part}" in said
    run([str(BIN / "dvc"), "repro", "-q"], root)
    gate = run([str(BIN / "assay"), "gate"], root, check=False)
    assert gate.returncode in (0, 1), gate.stdout + gate.stderr
    if part == "retrieval":  # the team's own corpus, ranked for the team's own cases
        runtime = json.loads((root / "data/derived/relevance/runs/lexical.json").read_text(encoding="utf-8"))
        from assay.relevance.corpus import corpus_sha256

        assert runtime["manifest"]["corpus_sha256"] == corpus_sha256(str(root / "data/corpus"))
        per_query = (root / "reports/relevance/per_query.csv").read_text(encoding="utf-8")
        cases = [json.loads(line)["id"] for line in (root / "data/cases.jsonl").read_text(encoding="utf-8").splitlines()]
        assert all(f"{case_id}," in per_query for case_id in cases)


def test_add_retrieval_without_example_reads_the_projects_corpus_and_copies_no_demo_corpus(tmp_path, capsys):
    root = init_project(tmp_path / "p", ["core"], "minimal", setup=False).root
    assert main(["add", "retrieval", "--root", str(root)]) == 0
    assert "its 30 queries and their qrels are made from your cases" in capsys.readouterr().out
    relevance = yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8"))["relevance"]
    assert (relevance["corpus"], relevance["queries"], relevance["qrels"]) == (
        "data/corpus", "data/relevance/queries.jsonl", "data/relevance/qrels.cases.trec")
    assert sorted(p.name for p in (root / "data/relevance").iterdir()) == ["qrels.cases.trec", "queries.jsonl",
                                                                         "thresholds.yaml"]
    queries = [json.loads(line) for line in (root / "data/relevance/queries.jsonl").read_text(encoding="utf-8").splitlines()]
    cases = [json.loads(line) for line in (root / "data/cases.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(q["query_id"] for q in queries) == sorted(c["id"] for c in cases)
    assert {q["query_id"] for q in queries if q["task"] == "abstain"} == {c["id"] for c in cases if c["expect"] == "abstain"}


def test_add_study_without_example_is_refused_and_changes_nothing(tmp_path, capsys):
    root = init_project(tmp_path / "p", ["core"], "minimal", setup=False).root
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    assert main(["add", "study", "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("assay add: the study part starts from a protocol") and err.count("\n") == 1
    assert "`assay add study --example minimal`" in err
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def test_a_study_project_starts_with_no_opening(tmp_path):
    root = init_project(tmp_path / "p", ["study"], "demo", setup=False).root
    evidence = root / "data/relevance/evidence.synthetic"
    assert (evidence / "development/manifest.json").exists() and not (evidence / "opening.json").exists()
    assert json.loads((root / "data/relevance/received.json").read_text(encoding="utf-8"))["opening"] == \
        {"opening.json": "absent"}
    added = init_project(tmp_path / "q", ["core"], "minimal", setup=False).root
    add_part(added, "study", "minimal")
    assert not (added / "data/relevance/evidence.synthetic/opening.json").exists()


def test_add_refuses_a_dvc_yaml_that_assay_did_not_write(tmp_path):
    root = init_project(tmp_path / "p", ["core"], "minimal", setup=False).root
    (root / "dvc.yaml").write_text("stages: {}\n", encoding="utf-8")
    with pytest.raises(ProjectError, match=r"was not generated by assay as it stands \(generated stages removed: compare,"):
        add_part(root, "judge")


def test_add_refuses_a_generated_dvc_yaml_with_a_stage_appended_naming_it_and_writes_nothing(tmp_path):
    """The header line stays, so only the digest shows the file is not what assay generated (issue 31)."""
    root = init_project(tmp_path / "p", ["core"], "minimal", setup=False).root
    dvc = root / "dvc.yaml"
    mine = dvc.read_text(encoding="utf-8") + "  publish:\n    cmd: cp metrics/gate.json /srv/www/\n"
    dvc.write_text(mine, encoding="utf-8")
    params = (root / "params.yaml").read_bytes()
    with pytest.raises(ProjectError, match=r"\(stages assay did not generate: publish\), so adding a part would overwrite "
                                           r"it \(fix: move your own stages to a dvc.yaml in a subfolder"):
        add_part(root, "judge")
    assert dvc.read_text(encoding="utf-8") == mine and (root / "params.yaml").read_bytes() == params
    assert not (root / "data/pairs.jsonl").exists()
    edited = mine.replace("  publish:\n    cmd: cp metrics/gate.json /srv/www/\n", "").replace("holdout_share", "holdout_share", 1)
    dvc.write_text(edited.replace("python -m assay.stages.gate", "python -m assay.stages.gate && cp x y"), encoding="utf-8")
    with pytest.raises(ProjectError, match=r"generated stages changed by hand: gate"):
        add_part(root, "judge")


def test_add_keeps_a_block_style_parts_list_valid_and_every_other_byte(tmp_path):
    root = init_project(tmp_path / "p", ["core"], "minimal", setup=False).root
    params = root / "params.yaml"
    text = params.read_text(encoding="utf-8")
    block = text.replace("parts: [core]   #", "parts:   #").replace("\n\ninputs:", "\n    - core     # mine\n\ninputs:", 1)
    params.write_text(block, encoding="utf-8")
    add_part(root, "queue")
    after = params.read_text(encoding="utf-8")
    assert after.startswith(block.replace("    - core     # mine\n", "    - core     # mine\n    - queue\n"))
    assert yaml.safe_load(after)["parts"] == ["core", "queue"] and "review" in yaml.safe_load(after)
    # a flow list with quotes and a comment keeps both
    root2 = init_project(tmp_path / "q", ["core"], "minimal", setup=False).root
    flow = (root2 / "params.yaml").read_text(encoding="utf-8").replace("parts: [core]   #", "parts: ['core']  # kept;")
    (root2 / "params.yaml").write_text(flow, encoding="utf-8")
    add_part(root2, "judge")
    after = (root2 / "params.yaml").read_text(encoding="utf-8")
    # the judge part's keys of the inputs section every project has are added at its end, every other byte kept
    added = [line for line in after.splitlines(keepends=True) if line.startswith(("  pairs:", "  guidelines:", "  prompts:"))]
    assert [line.split(":")[0].strip() for line in added] == ["pairs", "guidelines", "prompts"]
    assert after.index(added[0]) > after.index("  tools: ") and after.index(added[-1]) < after.index("\nplan:")
    assert "".join(line for line in after.splitlines(keepends=True) if line not in added).startswith(
        flow.replace("['core']", "['core', judge]"))
    assert set(yaml.safe_load(after)["inputs"]) >= {"cases", "corpus", "pairs", "guidelines", "prompts"}


@pytest.mark.parametrize("name", ["[draft]", "my eval: v2", "a #b", "評価 ক্ষ\u200dা", "it's \"q\" {x}", "naïve, & *ref !tag"])
def test_init_quotes_the_folder_name_so_params_yaml_reads_back_the_exact_value(tmp_path, name):
    from ruamel.yaml import YAML

    from assay.core.params import load_section
    from assay.data.split import SplitParams

    root = init_project(tmp_path / name, ["core"], "minimal", setup=False).root
    params = root / "params.yaml"
    assert yaml.safe_load(params.read_text(encoding="utf-8"))["split"]["salt"] == f"{name}-v1"
    assert YAML(typ="rt").load(params.read_text(encoding="utf-8"))["split"]["salt"] == f"{name}-v1"  # DVC's parser
    assert load_section("split", SplitParams, params).salt == f"{name}-v1"
    for rel in ("dvc.yaml", ".github/workflows/assay.yml"):
        yaml.safe_load((root / rel).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name, said", [("a\tb", "holds the control character U+0009"), ("a\x7fb", "holds the control character U+007F"),
                                        ("x" * 256, "is longer than 255 bytes"), ("a\udc80b", "holds the lone surrogate U+DC80"),
                                        ("a\u2028b", "holds the line separator U+2028")])
def test_a_name_that_cannot_be_a_folder_is_refused_in_one_line_and_nothing_is_written(tmp_path, capsys, name, said):
    target = tmp_path / "in" / name
    assert main(["init", str(target)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("assay init: ") and said in err and err.count("\n") == 1
    assert not (tmp_path / "in").exists()


def test_init_force_never_writes_through_a_symlink_out_of_the_project(tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    root = tmp_path / "p"
    root.mkdir()
    (root / "data").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ProjectError, match=r"p/data/.* resolves to .*/elsewhere/.*, outside .*/p \(a symlink on the way\)"):
        init_project(root, force=True, setup=False)
    assert list(outside.iterdir()) == [] and sorted(p.name for p in root.iterdir()) == ["data"]
    (root / "data").unlink()
    (root / "README.md").symlink_to(outside / "README.md")  # a dangling link to a file outside
    with pytest.raises(ProjectError, match="README.md resolves to"):
        init_project(root, force=True, setup=False)
    assert list(outside.iterdir()) == []


def test_github_workflows_as_a_file_is_a_clean_error_before_anything_is_written(tmp_path, capsys):
    root = tmp_path / "p"
    (root / ".github").mkdir(parents=True)
    (root / ".github/workflows").write_text("not a folder\n", encoding="utf-8")
    assert main(["init", str(root), "--force"]) == 1
    err = capsys.readouterr().err
    assert err == f"assay init: {root}/.github/workflows is a file where a folder is needed to write " \
                  ".github/workflows/assay.yml (fix: rename or remove it, then run assay init again)\n"
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == [".github", ".github/workflows"]


def test_init_inside_a_repository_writes_the_workflow_at_its_root_running_in_the_project_folder(tmp_path):
    top = tmp_path / "repo"
    top.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(top)], check=True)
    result = init_project(top / "evals" / "rag", ["core"], "minimal", setup=False)
    assert "../../.github/workflows/assay.yml" in result.written and not (top / "evals/rag/.github").exists()
    workflow = yaml.safe_load((top / ".github/workflows/assay.yml").read_text(encoding="utf-8"))
    assert workflow["defaults"]["run"]["working-directory"] == "evals/rag"
    steps = {s.get("name"): s for s in workflow["jobs"]["evaluate"]["steps"]}
    assert steps["Restore the virtual environment"]["with"]["path"] == "evals/rag/.venv"
    assert "hashFiles('evals/rag/requirements.txt', 'evals/rag/constraints.txt')" in steps["Restore the virtual environment"]["with"]["key"]
    assert steps["Restore DVC's cache"]["with"]["path"] == "evals/rag/.dvc/cache"
    assert steps["Save DVC's cache"]["with"]["path"] == "evals/rag/.dvc/cache"
    with pytest.raises(ProjectError, match=r"the folder 'my eval' of the git repository .* \(fix: rename the folder, or make "
                                           r"it a repository of its own with `git init -b main"):
        init_project(top / "my eval", ["core"], "minimal", setup=False)
    assert not (top / "my eval").exists()
    # a second project in the same repository: the root's workflow runs the first one, so it is refused
    with pytest.raises(ProjectError, match=r"assay.yml exists and does not run in evals/search, .* \(fix: `git mv "
                                           r".github/workflows/assay.yml .github/workflows/assay-other.yml`"):
        init_project(top / "evals" / "search", ["core"], "minimal", setup=False)
    assert not (top / "evals/search").exists()
    again = init_project(top / "evals" / "rag", ["core"], "minimal", setup=False, force=True)
    assert "../../.github/workflows/assay.yml" in again.kept and again.written == []


def test_the_version_is_the_installed_distributions_and_assay_version_prints_it(capsys):
    import importlib.metadata

    import assay

    assert assay.__version__ == importlib.metadata.version("assay-eval")
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out == f"assay {assay.__version__}\n"


def test_installed_versions_from_folder_names_equal_importlib_metadatas():
    import importlib.metadata

    from assay.core.pin import canonical, installed_versions

    expected: dict[str, str] = {}
    for dist in importlib.metadata.distributions():  # the reference: every METADATA file parsed
        expected.setdefault(canonical(dist.metadata["Name"]), dist.version)
    assert installed_versions() == expected and len(expected) > 50


def _source(text, version="1.2.0"):
    from assay.core.install import parse_direct_url

    return parse_direct_url(text, version)


def test_the_pin_follows_how_assay_was_installed(tmp_path):
    from assay.project.install import install_pin

    assert install_pin(_source(None)).lines == ("-c constraints.txt", "assay-eval==1.2.0") and not install_pin(_source(None)).note
    vcs = install_pin(_source('{"url": "https://me:s3cret@git.example/assay.git", "vcs_info": {"vcs": "git", '
                              '"commit_id": "0123456789abcdef0123456789abcdef01234567", "requested_revision": "v1.2.0"}}'))
    assert vcs.lines[-1] == "assay-eval @ git+https://git.example/assay.git@0123456789abcdef0123456789abcdef01234567"
    assert "s3cret" not in " ".join(vcs.lines)  # a token in the URL is never written
    wheel = tmp_path / "assay_eval-1.2.0-py3-none-any.whl"
    wheel.write_bytes(b"PK")
    local = install_pin(_source(f'{{"url": "{wheel.as_uri()}", "archive_info": {{}}}}'))
    assert local.lines == ("--find-links wheels", "-c constraints.txt", "assay-eval==1.2.0") and local.wheel == str(wheel)
    assert "copied to wheels/assay_eval-1.2.0-py3-none-any.whl" in local.note and "commit wheels/" in local.note
    editable = install_pin(_source('{"url": "file:///home/me/assay", "dir_info": {"editable": true}}'))
    assert editable.lines[-1] == "assay-eval==1.2.0" and "which CI cannot reach" in editable.note
    result = init_project(tmp_path / "p", ["core"], "minimal", setup=False, pin=local)
    assert (result.root / "wheels/assay_eval-1.2.0-py3-none-any.whl").read_bytes() == b"PK"
    assert result.notes == [local.note]
    requirements = (result.root / "requirements.txt").read_text(encoding="utf-8")
    assert requirements.endswith("--find-links wheels\n-c constraints.txt\nassay-eval==1.2.0\n")
    assert pinned_version(result.root) == "1.2.0"


def test_constraints_pin_the_environment_and_the_pin_check_refuses_another(tmp_path):
    import importlib.metadata

    from assay.project.install import constraints_text

    text = constraints_text()
    assert f"numpy=={importlib.metadata.version('numpy')}\n" in text and "\nassay-eval==" not in text
    assert f"pydantic=={importlib.metadata.version('pydantic')}\n" in text
    (tmp_path / "requirements.txt").write_text(f"-c constraints.txt\nassay-eval=={pinned_or_running()}\n", encoding="utf-8")
    (tmp_path / "constraints.txt").write_text(text, encoding="utf-8")
    check_pin(tmp_path)  # the environment it was written from
    (tmp_path / "constraints.txt").write_text(text.replace(f"numpy=={importlib.metadata.version('numpy')}", "numpy==1.0.0"),
                                              encoding="utf-8")
    with pytest.raises(VersionMismatch, match=rf"constraints.txt pins numpy==1.0.0 \({importlib.metadata.version('numpy')} "
                                              r"installed\) \(fix: `pip install -r requirements.txt`"):
        check_pin(tmp_path)


def pinned_or_running() -> str:
    import assay

    return assay.__version__


def test_a_git_pin_is_checked_against_the_installed_commit(tmp_path):
    from assay.core.pin import pinned_commit

    (tmp_path / "requirements.txt").write_text("assay-eval @ git+https://h.example/assay.git@0123abcd\n", encoding="utf-8")
    assert pinned_commit(tmp_path) == "0123abcd" and pinned_version(tmp_path) is None
    check_pin(tmp_path, installed_commit="0123abcdef0123456789")
    with pytest.raises(VersionMismatch, match=r"pins assay-eval at git commit 0123abcd but the installed assay comes from "
                                              r"commit ffff"):
        check_pin(tmp_path, installed_commit="ffff0000")


def test_a_stage_refuses_to_run_under_another_assay_version_than_the_pin(tmp_path):
    (tmp_path / "requirements.txt").write_text("assay-eval==0.0.1\n", encoding="utf-8")
    with pytest.raises(VersionMismatch, match=r"pins assay-eval==0.0.1 but assay .* is installed \(fix: `pip install"):
        check_pin(tmp_path)
    check_pin(tmp_path, installed="0.0.1")
    (tmp_path / "requirements.txt").write_text("numpy\n", encoding="utf-8")
    check_pin(tmp_path)  # no assay pin: nothing to compare (assay's own repository)
    assert isinstance(VersionMismatch("x"), AssayError) and VersionMismatch.exit_code == 2


@pytest.mark.e2e
def test_init_then_repro_gate_commit_and_a_second_repro_leave_git_clean(small_copy):
    """The minimal example with the real git and dvc (the session's small project: `assay init` with every
    part, `dvc repro`, committed): the gate decides (0 or 1, never 2) right away."""
    root = small_copy
    assert (root / ".git").is_dir() and (root / ".dvc").is_dir()
    gate = run([str(BIN / "assay"), "gate"], root, check=False)
    assert gate.returncode in (0, 1), gate.stdout + gate.stderr
    assert run(["git", "status", "--porcelain"], root).stdout == ""
    run([str(BIN / "dvc"), "repro", "-q"], root)
    assert run(["git", "status", "--porcelain"], root).stdout == ""
    (root / "requirements.txt").write_text("assay-eval==0.0.1\n", encoding="utf-8")
    assert run([str(BIN / "dvc"), "status", "--json"], root).stdout.count("requirements.txt") >= 7  # every stage
    proc = run([str(BIN / "dvc"), "repro", "plan"], root, check=False)
    assert proc.returncode != 0 and "pins assay-eval==0.0.1" in proc.stdout + proc.stderr
    gate = run([str(BIN / "assay"), "gate", "--skip-dvc-status"], root, check=False)
    assert gate.returncode == 2 and "requirements.txt pins 0.0.1, assay" in gate.stdout


@pytest.mark.e2e
def test_a_study_project_opens_its_own_holdout_and_its_access_log_stays_out_of_git(small_copy):
    """A fresh study project (the session's small project, every part, reproduced once): verdict not stuck
    at 2, an annotator cannot open, the coordinator can; the sealed reads that follow go to access.log,
    and git stays clean after `dvc repro -f`."""
    root = small_copy
    verdict = run([str(BIN / "assay"), "study", "verdict"], root, check=False)
    assert verdict.returncode in (1, 3) and "holdout_opened" in verdict.stdout, verdict.stdout + verdict.stderr
    refused = run([str(BIN / "assay"), "study", "open-holdout", "--decided-by", "ANN-A01", "--reason", "rc"], root,
                  check=False)
    assert refused.returncode == 2 and "not the study's coordinator (CRD-01" in refused.stderr
    assert run(["git", "status", "--porcelain"], root).stdout == ""  # committed by the fixture; the refusal wrote nothing
    run([str(BIN / "assay"), "study", "open-holdout", "--decided-by", "CRD-01", "--reason", "rc frozen"], root)
    run([str(BIN / "dvc"), "repro", "-q"], root)
    run(["git", "add", "-A"], root)
    run(["git", "commit", "-qm", "opened"], root)
    run([str(BIN / "dvc"), "repro", "-f", "-q"], root)
    assert (root / "data/relevance/evidence.synthetic/access.log").read_text(encoding="utf-8").count("\n") >= 2
    assert run(["git", "status", "--porcelain"], root).stdout == ""
