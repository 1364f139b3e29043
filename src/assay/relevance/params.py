"""The ``relevance:`` section of params.yaml: inputs, each mode's settings, the answer rule, statistics."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from assay.core.confinement import ProjectPath
from assay.core.records import InputModel

ModeName = Literal["lexical", "semantic", "hybrid", "reranked", "graph"]
MODES: tuple[ModeName, ...] = ("lexical", "semantic", "hybrid", "reranked", "graph")


class LexicalParams(InputModel):
    """BM25 (bm25s, Lucene variant) over lower-cased word tokens with English stop words removed."""

    model_config = ConfigDict(extra="forbid")
    k1: float = Field(default=1.2, gt=0)
    b: float = Field(default=0.75, ge=0, le=1)


class SemanticParams(InputModel):
    """Dense vectors: LSA over TF-IDF by default, or ``embedding: "module:function"``.

    The plug-in takes a list of texts and returns one vector per text (any array-like of shape
    ``(n, d)``); it is called once on the documents and once on the queries.
    """

    model_config = ConfigDict(extra="forbid")
    components: int = Field(default=128, ge=2)
    seed: int = 0
    embedding: str | None = None


class HybridParams(InputModel):
    """Reciprocal rank fusion of lexical and semantic: ``sum 1 / (k + rank)`` over the two rankings."""

    model_config = ConfigDict(extra="forbid")
    k: int = Field(default=60, ge=1)


class RerankParams(InputModel):
    """Second stage over the first ``top_n`` of hybrid; ``cross_encoder: "module:function"`` replaces the default."""

    model_config = ConfigDict(extra="forbid")
    top_n: int = Field(default=30, ge=1)
    cross_encoder: str | None = None


class GraphParams(InputModel):
    """Personalized PageRank over the document graph, seeded by the first ``seeds`` hybrid documents."""

    model_config = ConfigDict(extra="forbid")
    seeds: int = Field(default=10, ge=1)
    alpha: float = Field(default=0.85, gt=0, lt=1)
    weight: float = Field(default=0.2, ge=0, le=1)


class RelevanceParams(InputModel):
    """``relevance:`` in params.yaml.

    ``thresholds``: the pre-registered thresholds file (:mod:`assay.relevance.thresholds`).

    ``depth`` documents are written per query. ``min_support``: a mode answers from its first
    non-heuristic document only when that document holds at least this share of the query's
    content words; otherwise it abstains. ``latency``: ``modelled`` (deterministic, so committed
    metrics are byte-stable) or ``measured`` (wall clock; for benchmarking, not for committed runs).
    """

    model_config = ConfigDict(extra="forbid")
    corpus: ProjectPath = "data/relevance/corpus.jsonl"
    queries: ProjectPath = "data/relevance/queries.jsonl"
    qrels: ProjectPath = "data/relevance/qrels.synthetic.trec"
    thresholds: ProjectPath = "data/relevance/thresholds.yaml"
    modes: list[ModeName] = list(MODES)
    depth: int = Field(default=100, ge=10)
    measures: list[str] = ["R@10", "nDCG@10", "RR@10", "P@10", "AP"]
    relevance_level: int = 1
    min_support: float = Field(default=0.6, ge=0, le=1)
    latency: Literal["modelled", "measured"] = "modelled"
    level: float = Field(default=0.95, gt=0, lt=1)
    lexical: LexicalParams = LexicalParams()
    semantic: SemanticParams = SemanticParams()
    hybrid: HybridParams = HybridParams()
    reranked: RerankParams = RerankParams()
    graph: GraphParams = GraphParams()
