"""reports/summary.md: the one page a person reads after `dvc repro`.

Built from the metrics files only (so it says exactly what the metrics say): dataset and coverage,
split, leakage, human agreement, the judge, both RAG versions, the paired comparison, and the
verdict with every reason. Each figure carries its n and, where one exists, its 95% interval.
Sections whose metrics file is absent say so instead of disappearing.
"""

from __future__ import annotations

from assay.release.checks import Check, exit_code


def _num(x, digits: int = 3) -> str:
    return "n/a" if x is None else (f"{x:.{digits}f}" if isinstance(x, float) else str(x))


def _ci(d: dict, key: str) -> str:
    low, high = d.get(f"{key}_ci_low"), d.get(f"{key}_ci_high")
    return f"{_num(d.get(key))} (95% interval {_num(low)} to {_num(high)})"


def _missing(name: str) -> list[str]:
    return [f"_Not available: metrics/{name} is missing; run `dvc repro`._", ""]


def summary_markdown(m: dict[str, dict | None], checks: list[Check], baseline: str, candidate: str) -> str:
    """The summary page.

    Args:
        m: metrics file name (``dataset.json``, ``rag/<version>.json``, ...) -> parsed JSON or ``None``.
        checks: the gate's checks.
        baseline, candidate: the compared versions' names.
    """
    code = exit_code(checks)
    verdict = {0: "PASS: the candidate may replace the baseline.",
               1: "FAIL: at least one pre-registered threshold is unmet.",
               2: "NOT DECIDED: a metrics file is missing or stale; re-run `dvc repro`."}[code]
    out = [f"# Evaluation summary: {candidate} vs {baseline}", "", f"**Verdict: {verdict}**", ""]
    out += ["| check | status | detail |", "|---|---|---|"]
    out += [f"| {c.name} | {c.status} | {c.detail} |" for c in checks]
    out.append("")

    out += ["## Dataset", ""]
    if (d := m.get("dataset.json")) is not None:
        langs = ", ".join(f"{k} {v}" for k, v in d["by_lang"].items())
        out += [f"{d['cases']} cases ({langs}) over {d['documents']} documents, dataset hash `{d['hash'][:12]}`. "
                f"{d['gaps']} task x set cell(s) hold fewer than two cases, {d['empty_cells']} are empty "
                "(reports/coverage.md).", ""]
    else:
        out += _missing("dataset.json")
    if (s := m.get("split.json")) is not None:
        out += [f"Split by salted id hash: {s['dev']} dev, {s['holdout']} holdout.", ""]
    if (k := m.get("leakage.json")) is not None:
        out += [f"Leakage (word-set Jaccard >= {k['threshold']}): {k['dev_holdout']} near-duplicate(s) across the split, "
                f"{k['sources']} match(es) with other sources (reports/leakage.json). Word overlap does not catch paraphrases.", ""]

    out += ["## Human agreement", ""]
    if (a := m.get("agreement.json")) is not None:
        out += [f"Two annotators on {a['n']} pairs: observed {_num(a['observed'])}, chance {_num(a['expected'])}, "
                f"Cohen's kappa {_ci(a, 'kappa')}; {a['disagreements']} disagreement(s) routed to adjudication "
                "(reports/disagreements.jsonl).", ""]
    else:
        out += _missing("agreement.json")

    out += ["## Judge", ""]
    if (c := m.get("calibration.json")) is not None:
        out += [f"Judge vs the final human label on {c['n']} pairs: agreement {_ci(c, 'agreement')}, kappa {_num(c['kappa'])}; "
                f"{c['order_disagreements']} order disagreement(s), {c['invalid']} invalid repl(ies). "
                f"Usable: {'yes' if c.get('usable') == 1 else 'no'} (reasons in reports/calibration.md).", ""]
        if isinstance(c.get("by_kind"), dict):
            out += ["| slice | agreement | n |", "|---|---:|---:|"]
            for group in ("by_kind", "by_lang"):
                for name, v in sorted((c.get(group) or {}).items()):
                    out.append(f"| {name} | {_num(v.get('agreement'))} | {v.get('n')} |")
            out.append("")
    else:
        out += _missing("calibration.json")
    if (b := m.get("bias.json")) is not None:
        out += [f"Bias probes: first_pick {_num(b.get('first_pick'))}, order_flip {_num(b.get('order_flip'))}, "
                f"longer_wins {_num(b.get('longer_wins'))}, self_wins {_num(b.get('self_wins'))} (reports/bias.md).", ""]

    out += ["## RAG versions", "", "| metric | " + baseline + " | " + candidate + " |", "|---|---:|---:|"]
    runs = {v: m.get(f"rag/{v}.json") for v in (baseline, candidate)}
    rows = [("pass rate", lambda r: _ci(r, "pass_rate")), ("cases", lambda r: _num(r.get("n")))]
    for family in ("recall_at_k", "citation_support", "answer_correct", "abstain_correct", "format_ok"):
        rows.append((family, lambda r, f=family: f"{_num(r.get(f))} (n {r.get('n_by_metric', {}).get(f, 'n/a')})"))
    rows.append(("latency p95 (ms)", lambda r: _num(r.get("latency_p95_ms"), 1)))
    for label, get in rows:
        out.append(f"| {label} | " + " | ".join(get(r) if r else "missing" for r in runs.values()) + " |")
    out.append("")

    out += ["## Paired comparison", ""]
    if (p := m.get("compare.json")) is not None:
        out += [f"On the same {p['n']} cases: {p['better']} better, {p['worse']} worse, {p['unchanged']} unchanged "
                f"({p['still_failing']} failing in both). Exact sign test p = {_num(p['p_sign'])}; "
                f"McNemar exact p = {_num(p['mcnemar']['p'])}. Ids in reports/compare.json.", ""]
        out += ["| task | " + baseline + " | " + candidate + " | n |", "|---|---:|---:|---:|"]
        for task, v in p["candidate_by_task"].items():
            out.append(f"| {task} | {_num(p['baseline_by_task'][task]['pass_rate'])} | {_num(v['pass_rate'])} | {v['n']} |")
        out.append("")
    else:
        out += _missing("compare.json")
    out += ["Small samples give wide intervals: read a difference whose interval spans zero as no evidence of a change.", ""]
    return "\n".join(out)
