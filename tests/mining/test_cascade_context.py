"""``--candidates cascade:P``: the cheap model sees mining's queries (debate context included) and
thresholds its class-balanced P(no relation), whatever prior it was built with."""

from __future__ import annotations

import subprocess
import sys

from argfaith.datasets.documents import load_debate
from argfaith.mining.candidates import Cascade, p_no_relation
from argfaith.mining.classifiers.registry import make_classifier
from argfaith.mining.pipeline import plan_debate

from .conftest import EP_DEBATE, KeywordClassifier


class RecordingClassifier(KeywordClassifier):
    """Keeps every query it is asked."""

    def __init__(self) -> None:
        super().__init__()
        self.queries = []

    def classify(self, pairs, *, progress=None):  # type: ignore[no-untyped-def]
        self.queries.extend(pairs)
        return super().classify(pairs, progress=progress)


def test_cascade_cheap_model_gets_the_same_queries_as_mining() -> None:
    debate = load_debate(EP_DEBATE)
    cheap = RecordingClassifier()
    plan = plan_debate(debate, candidates="cascade:0.85", cheap_classifier=lambda: cheap)
    full = plan_debate(debate)  # every candidate; queries() = what mining sends the classifier
    assert len(cheap.queries) == len(full.pairs)
    assert cheap.queries == full.queries()
    assert any(q.source_context for q in cheap.queries)  # the context really is there
    assert any(q.target_context for q in cheap.queries)
    assert 0 < len(plan.pairs) < len(full.pairs)


def test_cascade_thresholds_the_balanced_posterior_whatever_the_prior() -> None:
    debate = load_debate(EP_DEBATE)
    full = plan_debate(debate)
    balanced = make_classifier("features")
    p_bal = [p_no_relation(p) for p in balanced.classify(full.queries())]
    p_all = [p_no_relation(p) for p in make_classifier("features?prior=all-pairs").classify(full.queries())]
    assert p_bal != p_all  # the all-pairs scores really differ
    thr = sorted(p_bal)[len(p_bal) // 2]  # a threshold that splits the candidates
    expected = {(c.source_id, c.target_id) for c, p in zip(full.pairs, p_bal, strict=True) if p < thr}
    for spec in ("features", "features?prior=all-pairs", "features?prior=sampled"):
        cascade = Cascade(make_classifier(spec), threshold=thr)
        res = cascade.prune(list(full.pairs), {u.id: u for u in (*full.proposals, *full.speech)}, topic=full.topic,
                            contexts=full.contexts)
        assert {(c.source_id, c.target_id) for c in res.kept} == expected, spec
        assert cascade.classifier.prior is None or cascade.classifier.prior.name == "balanced"


def test_cascade_without_context_would_differ() -> None:
    # Guards the fix: the context changes the offline model's P(no relation) on this debate, so a
    # cascade fed context-free queries would prune other pairs than mining's model would see.
    debate = load_debate(EP_DEBATE)
    full = plan_debate(debate)
    units = {u.id: u for u in (*full.proposals, *full.speech)}
    with_ctx = Cascade(make_classifier("features"), 0.6).prune(list(full.pairs), units, topic=full.topic, contexts=full.contexts)
    without = Cascade(make_classifier("features"), 0.6).prune(list(full.pairs), units, topic=full.topic)
    pw = [p_no_relation(with_ctx.predictions[(c.source_id, c.target_id)]) for c in full.pairs]
    po = [p_no_relation(without.predictions[(c.source_id, c.target_id)]) for c in full.pairs]
    assert pw != po
    via_plan = plan_debate(debate, candidates="cascade:0.6", cheap_classifier=lambda: make_classifier("features"))
    assert via_plan.pairs == with_ctx.kept


def test_mine_cli_with_cascade(tmp_path) -> None:  # noqa: ANN001
    out = tmp_path / "q.json"
    r = subprocess.run([sys.executable, "-m", "argfaith", "mine", str(EP_DEBATE), "--classifier", "features",
                        "--candidates", "cascade:0.6", "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert out.is_file()
