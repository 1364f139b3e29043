"""Rule-based per-dimension verdicts: the evaluation-design notes' four examples and the symmetry of the rules."""

from hypothesis import given
from hypothesis import strategies as st

from assay.judge.dimensions import dimensions
from assay.data.pairs import Pair, load_pairs

from conftest import ROOT

PAIRS = {p.id: p for p in load_pairs(ROOT / "data" / "pairs.jsonl")}


def test_seed_examples():
    # the notes: padded_wrong-1 b/tie/b, verbose_tie-1 tie/tie/a, cite-1 tie/a/tie, self-1 tie/b/tie
    assert dimensions(PAIRS["padded_wrong-1"]).model_dump() == {"correctness": "b", "evidence": "tie", "concision": "b"}
    assert dimensions(PAIRS["verbose_tie-1"]).model_dump() == {"correctness": "tie", "evidence": "tie", "concision": "a"}
    assert dimensions(PAIRS["cite-1"]).model_dump() == {"correctness": "tie", "evidence": "a", "concision": "tie"}
    assert dimensions(PAIRS["self-1"]).model_dump() == {"correctness": "tie", "evidence": "b", "concision": "tie"}


def test_every_kind_by_its_definition():
    for p in PAIRS.values():
        d = dimensions(p)
        if p.kind in ("clear", "padded_wrong"):
            assert d.correctness == p.final, p.id
        if p.kind in ("cite", "self"):
            assert (d.correctness, d.evidence) == ("tie", p.final), p.id
        if p.kind == "padded_wrong":
            assert d.concision == p.final, p.id  # the right answer is the short one
        if p.kind == "verbose_tie":
            assert d.correctness == d.evidence == "tie" and d.concision != "tie", p.id
        if p.kind == "tie":
            assert d.model_dump() == {"correctness": "tie", "evidence": "tie", "concision": "tie"}, p.id


def test_concision_ratio_edge():
    def mk(a, b):
        return Pair(id="x", case_question="q", facts=["f"], a=a, b=b, kind="tie", lang="en", ann1="tie", ann2="tie",
                    final="tie")
    assert dimensions(mk("f " * 2, "f " * 3)).concision == "a"  # 3 >= 1.5 * 2
    assert dimensions(mk("f " * 3, "f " * 4)).concision == "tie"  # 4 < 4.5
    assert dimensions(mk("f f f [source: kb-a]", "f f f")).concision == "tie"  # 5 words, but the citation does not count


text = st.text(alphabet=st.sampled_from(list("f x[]:source-kb ")), min_size=1, max_size=30).filter(str.strip)  # a Pair refuses blank answers


@given(text, text, st.lists(st.sampled_from(["f", "x", "kb"]), max_size=3))
def test_swapping_answers_mirrors_every_dimension(a, b, facts):
    def mk(x, y):
        return Pair(id="x", case_question="q", facts=facts, a=x, b=y, kind="tie", lang="en", ann1="tie", ann2="tie",
                    final="tie")
    mirror = {"a": "b", "b": "a", "tie": "tie"}
    assert {k: mirror[v] for k, v in dimensions(mk(a, b)).model_dump().items()} == dimensions(mk(b, a)).model_dump()
    assert set(dimensions(mk(a, a)).model_dump().values()) == {"tie"}


def test_evidence_and_concision_agree_on_what_a_citation_is():
    # "[source: ]" names no document: it is not a citation for the evidence rule, so its two words
    # count towards concision too (before, concision stripped any "[source:...]" with a looser pattern)
    def mk(a, b):
        return Pair(id="x", case_question="q", facts=["f"], a=a, b=b, kind="tie", lang="en", ann1="tie", ann2="tie",
                    final="tie")

    # a: 2 words + an empty marker (2 more words) = 4 >= 1.5 * 2, so b is the concise one
    assert dimensions(mk("f here [source: ]", "f here")).model_dump() == {"correctness": "tie", "evidence": "tie", "concision": "b"}
    # a real marker is dropped before counting: 2 words each, a tie; the cited answer wins evidence
    assert dimensions(mk("f here [source: kb-1]", "f here")).model_dump() == {"correctness": "tie", "evidence": "a", "concision": "tie"}
