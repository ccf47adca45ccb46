"""The budget owner and its workers' stand-in, without a cluster: payload round trips, one
classify call per batch of waiting requests, errors returned to the asking workers."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argfaith.mining.classifiers.base import PairQuery, Prediction
from argfaith.study.broker import (
    BrokeredClassifier,
    BudgetOwner,
    BudgetOwnerError,
    decode_predictions,
    decode_queries,
    encode_predictions,
    encode_queries,
    owns_shared_budget,
)
from argfaith.study.fingerprint import FingerprintedClassifier

from .conftest import CountingClassifier

text = st.text(max_size=30)
opt_text = st.none() | text
opt_int = st.none() | st.integers(0, 10**6)
queries = st.builds(PairQuery, source=text, target=text, topic=opt_text, source_id=opt_text, target_id=opt_text,
                    target_kind=st.sampled_from([None, "proposal", "speech"]), source_context=opt_text, target_context=opt_text,
                    source_speaker=opt_text, target_speaker=opt_text, source_position=opt_int, target_position=opt_int,
                    genre=st.sampled_from([None, "debate", "summary"]))
predictions = st.builds(Prediction, label=st.sampled_from(["attack", "support", "no relation"]),
                        confidence=st.none() | st.floats(0, 1), fallback=st.booleans(), raw=opt_text, final=st.booleans(),
                        probabilities=st.none() | st.dictionaries(st.sampled_from(["attack", "support", "no relation"]), st.floats(0, 1)))


@given(st.lists(queries, max_size=5))
def test_queries_round_trip(qs: list[PairQuery]) -> None:
    assert decode_queries(encode_queries(qs)) == qs


@given(st.lists(predictions, max_size=5))
def test_predictions_round_trip(ps: list[Prediction]) -> None:
    assert decode_predictions(encode_predictions(ps)) == ps


class _Recording(CountingClassifier):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def classify(self, pairs, *, progress=None):  # type: ignore[no-untyped-def]
        self.calls.append(len(pairs))
        return super().classify(pairs, progress=progress)


def _q(i: int) -> PairQuery:
    return PairQuery(f"source {i}", f"target {i % 3}", "topic")


def test_waiting_requests_are_classified_as_one_job() -> None:
    clf = _Recording()
    owner = BudgetOwner(clf)
    reqs = [{"id": "a", "queries": encode_queries([_q(i) for i in range(4)])},
            {"id": "b", "queries": encode_queries([_q(i) for i in range(4, 6)])}]
    replies = owner.answer(reqs)
    assert clf.calls == [6]  # one call over the union
    assert [r["id"] for r in replies] == ["a", "b"]
    assert [p.label for p in decode_predictions(replies[0]["predictions"])] == [CountingClassifier.label(_q(i)) for i in range(4)]
    assert [p.label for p in decode_predictions(replies[1]["predictions"])] == [CountingClassifier.label(_q(i)) for i in range(4, 6)]
    assert owner.stats() == {"requests": 2, "classify_calls": 1, "pairs": 6}


def test_owner_errors_go_back_to_every_asking_worker() -> None:
    class Broken(CountingClassifier):
        def classify(self, pairs, *, progress=None):  # type: ignore[no-untyped-def]
            raise RuntimeError("quota exhausted")

    replies = BudgetOwner(Broken()).answer([{"id": "a", "queries": encode_queries([_q(1)])}, {"id": "b", "queries": []}])
    assert replies == [{"id": "a", "error": "RuntimeError: quota exhausted"}, {"id": "b", "error": "RuntimeError: quota exhausted"}]
    stand_in = BrokeredClassifier("claude:x", "fp", lambda rows: replies[0])
    with pytest.raises(BudgetOwnerError, match="main process.*quota exhausted"):
        stand_in.classify([_q(1)])


def test_stand_in_classifies_through_the_owner_with_its_identity() -> None:
    owner = BudgetOwner(CountingClassifier())
    sent: list[Any] = []

    def call(rows: list[list[Any]]) -> dict[str, Any]:
        sent.append(rows)
        return owner.answer([{"id": "x", "queries": rows}])[0]

    stand_in = BrokeredClassifier("counting", "fp-1", call)
    done: list[tuple[int, int]] = []
    preds = stand_in.classify([_q(i) for i in range(5)], progress=lambda d, t: done.append((d, t)))
    assert [p.label for p in preds] == [CountingClassifier.label(_q(i)) for i in range(5)]
    assert stand_in.classify([]) == [] and len(sent) == 1
    assert done == [(5, 5)] and stand_in.usage.calls == 0  # spend is counted by the owner
    assert (stand_in.name, stand_in.fingerprint) == ("counting", "fp-1")


def test_shared_budget_is_found_through_wrappers() -> None:
    from argfaith.mining.classifiers.claude import ClaudeRelationClassifier

    claude = ClaudeRelationClassifier(cache=None)
    assert owns_shared_budget(claude) and owns_shared_budget(FingerprintedClassifier(claude, "fp"))
    assert not owns_shared_budget(CountingClassifier()) and not owns_shared_budget(FingerprintedClassifier(CountingClassifier(), "f"))
