"""`argfaith bench relations` through the real entry point, the benchmark library, and the Claude
path end to end against a fake Anthropic API (real SDK, local HTTP server)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argfaith.bench.relations import cross_validate, group_folds, run_relation_benchmark, trainer_for
from argfaith.datasets.labels import LABELS
from argfaith.datasets.relations import RelationPair, load_relation_pairs
from argfaith.errors import ConfigurationError
from argfaith.metrics.classification import classification_report
from argfaith.mining.classifiers.base import Prediction, Usage
from argfaith.mining.classifiers.registry import make_classifier

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "relations"
PAIRS = FIX / "pairs.jsonl"
A = "<|ANSWER|>"


def run(args: list[str], tmp_path: Path, **env: str | None) -> subprocess.CompletedProcess[str]:
    e = {**os.environ, "ARGFAITH_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    e.pop("ANTHROPIC_API_KEY", None)
    for k, v in env.items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    return subprocess.run([sys.executable, "-m", "argfaith", "bench", "relations", *args], capture_output=True,
                          text=True, env=e, cwd=tmp_path, timeout=300)


# -- library ----------------------------------------------------------------------------------------


class Scripted:
    """Answers from a dict source → label and counts pretend API usage (2 calls per classify)."""

    name = "scripted"

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers
        self._usage = Usage(calls=5, input_tokens=100, cost_usd=1.0)  # pre-existing usage must not leak

    @property
    def usage(self) -> Usage:
        return self._usage

    def classify(self, pairs, *, progress=None):
        self._usage.calls += 2
        self._usage.input_tokens += 10 * len(pairs)
        self._usage.cost_usd += 0.5
        return [Prediction(self.answers.get(p.source, "no relation"), fallback=p.source not in self.answers) for p in pairs]


def test_run_relation_benchmark_scores_and_accounts_for_this_run_only():
    pairs = load_relation_pairs(PAIRS)
    answers = {p.source: p.label for p in pairs[:6]}
    r = run_relation_benchmark(pairs, Scripted(answers), data="fx", by="corpus")
    expected = classification_report([p.label for p in pairs], [answers.get(p.source, "no relation") for p in pairs])
    assert r.report == expected and r.n == 12
    assert (r.usage.calls, r.usage.input_tokens, r.usage.cost_usd) == (2, 120, 0.5)
    assert set(r.by_group) == {"debate-a", "debate-b"} and r.by_group["debate-a"].n == 6
    assert r.fallbacks == sum(1 for p in pairs if p.source not in answers)
    d = r.to_dict()
    assert d["macro_f1"] == expected.macro_f1 and json.dumps(d)
    with pytest.raises(ConfigurationError, match="label"):
        run_relation_benchmark(pairs, Scripted({}), by="label")
    with pytest.raises(ConfigurationError, match="no pairs"):
        run_relation_benchmark([], Scripted({}))


sources = st.lists(st.sampled_from([f"s{i}" for i in range(15)]), min_size=10, max_size=40)


@settings(max_examples=60, deadline=None)
@given(sources, st.integers(2, 5), st.integers(0, 99))
def test_group_folds_never_split_a_source(srcs, k, seed):
    pairs = [RelationPair(s, f"t{i}", "support", source_id=s) for i, s in enumerate(srcs)]
    if len(set(srcs)) < k:
        with pytest.raises(ConfigurationError, match="too few"):
            group_folds(pairs, k, seed=seed)
        return
    folds = group_folds(pairs, k, seed=seed)
    fold_of: dict[str, int] = {}
    for s, f in zip(srcs, folds, strict=True):
        assert fold_of.setdefault(s, f) == f
    groups_per_fold = [len({s for s, f in zip(srcs, folds, strict=True) if f == j}) for j in range(k)]
    assert max(groups_per_fold) - min(groups_per_fold) <= 1  # round-robin over shuffled groups
    assert group_folds(pairs, k, seed=seed) == folds


def test_cross_validate_trains_on_other_folds_only():
    pairs = load_relation_pairs(PAIRS)
    seen: list[set[str]] = []

    def trainer(q, y, w):
        seen.append({x.source for x in q})
        assert len(q) == len(y) == len(w)
        return Scripted({x.source: lab for x, lab in zip(q, y, strict=True)})

    extra = [RelationPair("extra source", "t", "attack")]
    r = cross_validate(pairs, trainer, name="memo", k=3, extra_train=extra, extra_weight=0.25)
    folds = group_folds(pairs, 3)
    for f, train_sources in enumerate(seen):
        test_sources = {p.source for p, g in zip(pairs, folds, strict=True) if g == f}
        assert not (train_sources & test_sources) and "extra source" in train_sources
    # memorising the training folds cannot answer unseen sources: everything falls back
    assert r.fallbacks == len(pairs) and r.mode == "cv" and r.folds == 3 and r.notes
    majority = cross_validate(pairs, trainer_for("majority"), name="majority", k=3)
    expected = []
    for i, g in enumerate(folds):  # per fold: the most frequent training label (ties: canonical order)
        train = [p.label for p, h in zip(pairs, folds, strict=True) if h != g]
        expected.append(max(LABELS, key=lambda lab: (train.count(lab), -LABELS.index(lab))))
    assert majority.report == classification_report([p.label for p in pairs], expected)
    with pytest.raises(ConfigurationError, match="cannot be trained"):
        trainer_for("lexical")


# -- CLI through the real entry point -------------------------------------------------------------


def test_bench_relations_json_matches_the_library(tmp_path):
    out = tmp_path / "res" / "r.json"
    r = run(["--data", str(PAIRS), "-c", "features", "-c", "majority", "-c", "lexical", "--by", "corpus",
             "--format", "json", "--out", str(out)], tmp_path)
    assert r.returncode == 0, r.stderr
    payload = json.loads(r.stdout)
    assert json.loads(out.read_text(encoding="utf-8")) == payload
    assert payload["n"] == 12 and [x["classifier"] for x in payload["results"]] == ["features", "majority", "lexical"]
    pairs = load_relation_pairs(PAIRS)
    for res in payload["results"]:
        lib = run_relation_benchmark(pairs, make_classifier(res["classifier"]))
        assert res["macro_f1"] == pytest.approx(lib.report.macro_f1) and res["accuracy"] == pytest.approx(lib.report.accuracy)
        assert res["report"]["confusion"] == [list(x) for x in lib.report.confusion]
        assert set(res["by_group"]) == {"debate-a", "debate-b"}
    maj = payload["results"][1]
    assert maj["accuracy"] == pytest.approx(4 / 12) and maj["report"]["per_class"]["no relation"]["recall"] == 1.0


def test_bench_relations_table_cv_and_limit(tmp_path):
    r = run(["--data", str(PAIRS), "-c", "features", "-c", "majority", "--cv", "3", "--limit", "10"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Table 2" in r.stdout and "features (3-fold CV by source)" in r.stdout and "Accuracy" in r.stdout
    assert "confusion" in r.stdout and "│ 10 │" in r.stdout


def test_bench_relations_amelia_layout_with_env_data_dir(tmp_path):
    r = run(["--data", "amelia_small.csv", "-c", "majority?label=support", "--by", "corpus", "--format", "json"],
            tmp_path, ARGFAITH_DATA=str(FIX))
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)["results"][0]
    assert res["n"] == 5 and res["accuracy"] == pytest.approx(2 / 5) and set(res["by_group"]) == {"mtp1", "pe", "comarg"}


def test_bench_relations_errors_are_one_line(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("source,target,label\na,b,support\nc,d,rebuts\n", encoding="utf-8")
    cases = [
        (["--data", str(bad)], "bad.csv, line 3"),
        (["--data", str(tmp_path / "missing.jsonl")], "missing.jsonl"),
        (["--data", str(PAIRS), "-c", "nope"], "unknown classifier"),
        (["--data", str(PAIRS), "-c", "lexical", "--cv", "3"], "not trainable"),
        (["--data", str(PAIRS), "--extra-train", str(PAIRS)], "--cv"),
        (["--data", str(PAIRS), "--by", "label"], "cannot break results down"),
        (["--data", str(PAIRS), "--columns", "premise=x"], "unknown field"),
    ]
    for args, msg in cases:
        r = run(args, tmp_path)
        assert r.returncode == 2, (args, r.stderr)
        assert msg in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)


def test_label_map_and_columns_options(tmp_path):
    f = tmp_path / "mine.tsv"
    f.write_text("premise\tclaim\trel\na b c\ta b c\t1\nx y\tp q\t0\n", encoding="utf-8")
    r = run(["--data", str(f), "-c", "majority", "--columns", "source=premise,target=claim,label=rel",
             "--label-map", "1=support,0=no relation,-1=attack", "--format", "json"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["results"][0]["report"]["per_class"]["support"]["support"] == 1


# -- the Claude path end to end -------------------------------------------------------------------


def test_claude_through_bench_relations_with_a_fake_api(tmp_path):
    from argfaith.llm.testing import FakeAnthropicAPI, user_text
    from argfaith.mining.prompts import ARC_SYSTEM_PROMPT, arc_prompt

    pairs = load_relation_pairs(PAIRS)
    gold = {(p.source, p.target): p.label for p in pairs}

    def oracle(body):
        u = user_text(body)
        source, target = u.rsplit("\n[SOURCE]: ", 1)[1].split("\n[TARGET]: ", 1)  # after the few-shot examples
        label = gold[(source, target)]
        if source.startswith("I thank"):
            return "I am not sure."  # unparseable: the classifier's fallback label, counted
        return f"{A}{label}{A}"

    api = FakeAnthropicAPI(oracle, usage=lambda body, text: (100, 5))
    key = "sk-ant-test-0123456789"
    with api.serve() as url:
        r = run(["--data", str(PAIRS), "-c", "claude:claude-haiku-4-5?prompt=few", "--format", "json"], tmp_path,
                ANTHROPIC_API_KEY=key, ANTHROPIC_BASE_URL=url)
        assert r.returncode == 0, r.stderr
        calls = api.message_calls()
        assert len(calls) == 12
        # request bodies: the paper's few-shot prompt, verbatim, one pair per request
        bodies = {user_text(c.body) for c in calls}
        assert bodies == {arc_prompt(p.source, p.target, p.topic, "few").user for p in pairs}
        assert all(c.body["model"] == "claude-haiku-4-5" and c.body["system"] == ARC_SYSTEM_PROMPT for c in calls)
        res = json.loads(r.stdout)["results"][0]
        assert res["prompt"] == "few-shot" and res["classifier"].startswith("claude:claude-haiku-4-5")
        # parsing: 11 answers parsed to the gold label, 1 unparseable answer → fallback "no relation"
        assert res["fallbacks"] == 1 and res["report"]["confusion"][2][2] == 4
        assert res["accuracy"] == pytest.approx(1.0)  # the fallback happens to be the gold label here
        # cost accounting: Haiku 4.5 at $1 / $5 per million input / output tokens
        u = res["usage"]
        assert (u["calls"], u["input_tokens"], u["output_tokens"]) == (12, 1200, 60)
        assert u["cost_usd"] == pytest.approx(12 * (100 * 1.0 + 5 * 5.0) / 1e6)
        # rerun: served from the request cache, no request sent, no key needed, no cost
        r2 = run(["--data", str(PAIRS), "-c", "claude:claude-haiku-4-5?prompt=few", "--format", "json"], tmp_path,
                 ANTHROPIC_API_KEY=None, ANTHROPIC_BASE_URL=url)
        assert r2.returncode == 0, r2.stderr
        assert len(api.message_calls()) == 12
        res2 = json.loads(r2.stdout)["results"][0]
        assert res2["usage"]["calls"] == 0 and res2["usage"]["cache_hits"] == 12 and res2["usage"]["cost_usd"] == 0
        assert res2["macro_f1"] == res["macro_f1"]
    # table output carries Table 2's columns
    with api.serve() as url:
        r3 = run(["--data", str(PAIRS), "-c", "claude:claude-haiku-4-5?prompt=few"], tmp_path, ANTHROPIC_BASE_URL=url)
    assert r3.returncode == 0 and "few-shot" in r3.stdout and "Accuracy" in r3.stdout
    for blob in (r.stdout, r.stderr, r2.stdout, r2.stderr):
        assert key not in blob
    assert set(LABELS) >= {p.label for p in pairs}


def test_in_sample_scores_of_the_shipped_weights_are_shown_only_when_asked(tmp_path):
    (tmp_path / "ep_relations_silver").mkdir()
    dev = tmp_path / "ep_relations_silver" / "dev.jsonl"  # the silver file the shipped weights were trained on
    dev.write_text(PAIRS.read_text(encoding="utf-8"), encoding="utf-8")
    # Not asked: the in-sample classifier is not scored, and says why on stderr (one line per skip).
    r = run(["--data", str(dev), "-c", "features", "-c", "lexical", "--format", "json", "--context", "none"], tmp_path)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert [x["classifier"] for x in d["results"]] == ["lexical"] and d["results"][0]["notes"] == []
    assert len(d["skipped"]) == 1 and d["skipped"][0].startswith("features: not scored") and "--cv K" in d["skipped"][0]
    warn = [ln for ln in r.stderr.splitlines() if ln.startswith("warning: features: not scored")]
    assert len(warn) == 1 and "in-sample" in warn[0]
    # Only the in-sample classifier: nothing to score is an error, not an empty table.
    r = run(["--data", str(dev), "-c", "features", "--context", "none"], tmp_path)
    assert r.returncode == 2 and r.stderr.startswith("error: nothing to score: features: not scored")
    # Asked for: scored and marked, in JSON and in the Table-2 row.
    r = run(["--data", str(dev), "-c", "features", "--in-sample", "--format", "json", "--context", "none"], tmp_path)
    res = json.loads(r.stdout)["results"][0]
    assert res["in_sample"] is True and any("IN-SAMPLE" in n for n in res["notes"])
    r = run(["--data", str(dev), "-c", "features", "--in-sample", "--context", "none"], tmp_path)
    assert "features [IN-SAMPLE]" in r.stdout
    # Another file: no flag needed, nothing marked.
    r2 = run(["--data", str(PAIRS), "-c", "features", "--format", "json", "--context", "none"], tmp_path)
    res2 = json.loads(r2.stdout)["results"][0]
    assert res2["notes"] == [] and res2["in_sample"] is False


def test_the_spec_options_are_kept_in_json_and_table(tmp_path):
    r = run(["--data", str(PAIRS), "-c", "features?prior=all-pairs", "-c", "features", "--format", "json", "--context", "none"], tmp_path)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)["results"]
    assert [x["spec"] for x in res] == ["features?prior=all-pairs", "features"]
    assert [x["label"] for x in res] == ["features?prior=all-pairs", "features"]
    r = run(["--data", str(PAIRS), "-c", "features?prior=all-pairs", "--context", "none"], tmp_path)
    assert "features?prior=all-pairs" in r.stdout


# -- debate context and nested CV (second classifier push) -----------------------------------------


def test_nested_cv_with_one_candidate_is_plain_cv_and_reports_choices():
    from argfaith.bench.relations import nested_cross_validate

    pairs = load_relation_pairs(PAIRS)
    extra = [RelationPair("extra source about uniforms", "1. Calls for school uniforms;", "support", target_kind="proposal")]
    for w in (0.0, 0.5):
        plain = cross_validate(pairs, trainer_for("features"), name="features", k=3, seed=2,
                               extra_train=extra if w else (), extra_weight=w or 1.0)
        nested = nested_cross_validate(pairs, {"only": (trainer_for("features"), w)}, name="features", k=3, inner_k=2,
                                       seed=2, extra_train=extra)
        assert nested.report == plain.report  # same folds, same training pairs
        assert nested.mode == "nested-cv" and nested.notes == ("fold 0: only", "fold 1: only", "fold 2: only")
    # Two candidates: a choice per fold, always one of them.
    two = nested_cross_validate(pairs, {"majority": (trainer_for("majority"), 0.0), "features": (trainer_for("features"), 0.0)},
                                name="sel", k=3, inner_k=2, seed=0)
    assert len(two.notes) == 3 and all(n.split(": ")[1] in ("majority", "features") for n in two.notes)
    with pytest.raises(ConfigurationError, match="at least one candidate"):
        nested_cross_validate(pairs, {}, name="x")


def _ep_pairs(tmp_path: Path) -> Path:
    d = "CRE-20990101-ITEM-001"
    rows = [
        {"source_id": f"{d}-1-011-1", "source": "Menus are a matter for local authorities.", "target_id": f"{d}-PAR-1",
         "target": "1. Calls for healthy school meals;", "target_kind": "proposal", "label": "attack"},
        {"source_id": f"{d}-1-012-1", "source": "Free meals for poor families are a matter of dignity.", "target_id": f"{d}-1-010-1",
         "target": "Children who eat well learn better.", "target_kind": "speech", "label": "support"},
        {"source_id": f"{d}-1-012-2", "source": "The weather is fine.", "target_id": f"{d}-1-011-1",
         "target": "Menus are a matter for local authorities.", "target_kind": "speech", "label": "no relation"},
    ]
    f = tmp_path / "ep_pairs.jsonl"
    f.write_text("".join(json.dumps({**r, "topic": "School meals"}) + "\n" for r in rows), encoding="utf-8")
    return f


def test_bench_relations_context_option(tmp_path):
    ep = ROOT / "tests" / "fixtures" / "mining" / "ep_debates"
    f = _ep_pairs(tmp_path)
    r = run(["--data", str(f), "-c", "features", "--context", str(ep), "--format", "json"], tmp_path, ARGFAITH_DATA=None)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)["results"][0]
    assert any("found for 5 speech argument lookups, missing for 0" in n for n in res["notes"]), res["notes"]
    # The library with the same context gives the same scores; without context the notes say nothing.
    from argfaith.bench.relations import DebateContexts

    lib = run_relation_benchmark(load_relation_pairs(f), make_classifier("features"), contexts=DebateContexts(ep))
    assert res["macro_f1"] == pytest.approx(lib.report.macro_f1)
    r2 = run(["--data", str(f), "-c", "features", "--context", "none", "--format", "json"], tmp_path, ARGFAITH_DATA=None)
    assert r2.returncode == 0 and not any("debate context" in n for n in json.loads(r2.stdout)["results"][0]["notes"])
    # Auto-detection: $ARGFAITH_DATA/ep_debates.
    r3 = run(["--data", str(f), "-c", "features", "--format", "json"], tmp_path, ARGFAITH_DATA=str(ep.parent))
    assert any("found for 5" in n for n in json.loads(r3.stdout)["results"][0]["notes"])
    bad = run(["--data", str(f), "--context", str(tmp_path / "nowhere")], tmp_path, ARGFAITH_DATA=None)
    assert bad.returncode == 2 and "--context" in bad.stderr and "Traceback" not in bad.stderr
