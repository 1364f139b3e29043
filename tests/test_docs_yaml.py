"""Every ```yaml block in README.md and docs/ loads under the C YAML parsers a project installs.

DVC reads params.yaml with ruamel's C parser, which refuses what the pure parsers accept: the
one-line ``paraphrase: {detector: a.b:c, ...}`` (a ``:`` inside a plain scalar in flow style)
broke ``dvc repro`` for anyone who pasted it from docs/leakage.md.
"""

import io
import re

import pytest
import yaml
from ruamel.yaml import YAML

from conftest import ROOT

BLOCKS = [(f"{path.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 2}", m.group(1))
          for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
          for text in [path.read_text(encoding="utf-8")]
          for m in re.finditer(r"^```ya?ml\n(.*?)^```", text, re.S | re.M)]


def test_the_leakage_paraphrase_setting_is_among_the_blocks():
    assert any(where.startswith("docs/leakage.md:") and "paraphrase:" in block for where, block in BLOCKS)


def test_the_c_parser_refuses_the_old_one_line_setting():
    """The check below can fail: ruamel's C parser refuses the flow-style form the page used to show."""
    with pytest.raises(Exception, match="found unexpected ':'"):
        YAML(typ="safe", pure=False).load(io.StringIO(
            "leakage:\n  paraphrase: {detector: assay.data.leakage.paraphrase:char_ngrams, threshold: 0.7}\n"))


@pytest.mark.parametrize("where, block", BLOCKS, ids=[w for w, _ in BLOCKS])
def test_a_docs_yaml_block_loads_under_both_c_parsers(where, block):
    assert YAML(typ="safe", pure=False).load(io.StringIO(block)) == yaml.load(block, Loader=yaml.CSafeLoader)
