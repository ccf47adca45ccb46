"""The recorded-label classifier: formats, lookup keys, unknown-pair policy, malformed files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from argfaith.errors import ConfigurationError, DataFormatError
from argfaith.mining.classifiers.base import PairQuery, RelationClassifier
from argfaith.mining.classifiers.recorded import RecordedClassifier, UnrecordedPairError, make_recorded_classifier


def write_jsonl(path: Path, rows: list[dict], *, trailing_newline: bool = True) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + ("\n" if trailing_newline else ""), encoding="utf-8")
    return path


ROWS = [
    {"source_id": "a", "target_id": "b", "label": "attack", "source": "We  oppose it.", "target": "It is good."},
    {"source_id": "a", "target_id": "c", "label": "Support", "confidence": 0.75},
    {"source": "Lonely text.", "target": "Other text.", "label": "no_relation"},
]


def test_replays_by_ids_and_texts(tmp_path: Path):
    clf = RecordedClassifier(write_jsonl(tmp_path / "l.jsonl", ROWS))
    assert isinstance(clf, RelationClassifier)
    qs = [
        PairQuery("We oppose it.", "It is good.", source_id="a", target_id="b"),
        PairQuery("x", "y", source_id="a", target_id="c"),  # the row records no texts: ids decide
        PairQuery("Lonely   text.", " Other text.", source_id="zz", target_id="yy"),  # ids unknown → texts
        PairQuery("We oppose it.", "It is good."),  # no ids → texts (whitespace collapsed)
    ]
    got = clf.classify(qs)
    assert [p.label for p in got] == ["attack", "support", "no relation", "attack"]
    assert got[1].confidence == 0.75 and not any(p.fallback for p in got)
    assert clf.replayed == 4 and clf.usage.extra["replayed"] == 4 and clf.usage.calls == 0
    assert clf.n_records == 2


def test_key_modes(tmp_path: Path):
    f = write_jsonl(tmp_path / "l.jsonl", ROWS)
    q = PairQuery("We oppose it.", "It is good.", source_id="q1", target_id="q2")
    with pytest.raises(UnrecordedPairError):
        RecordedClassifier(f, key="ids").classify([q])
    assert RecordedClassifier(f, key="texts").classify([q])[0].label == "attack"
    with pytest.raises(UnrecordedPairError):  # texts mode ignores known ids
        RecordedClassifier(f, key="texts").classify([PairQuery("x", "y", source_id="a", target_id="b")])


def test_unknown_policy(tmp_path: Path):
    f = write_jsonl(tmp_path / "l.jsonl", ROWS)
    q = PairQuery("new", "pair", source_id="n1", target_id="n2")
    with pytest.raises(UnrecordedPairError, match=r"l\.jsonl: no recorded label for pair 'n1' -> 'n2'"):
        RecordedClassifier(f).classify([q])
    clf = RecordedClassifier(f, unknown="no relation")
    got = clf.classify([q, q])
    assert [p.label for p in got] == ["no relation", "no relation"] and all(p.fallback for p in got)
    assert clf.unrecorded == 2 and clf.usage.extra["unrecorded"] == 2


def test_csv_and_tsv(tmp_path: Path):
    (tmp_path / "l.csv").write_text('source_id,target_id,label\na,b,attack\n"a","c",no relation\n', encoding="utf-8")
    (tmp_path / "l.tsv").write_text("source\ttarget\tlabel\nx y\tz\tsupport\n", encoding="utf-8")
    assert RecordedClassifier(tmp_path / "l.csv").classify([PairQuery("", "", source_id="a", target_id="c")])[0].label == "no relation"
    assert RecordedClassifier(tmp_path / "l.tsv").classify([PairQuery("x  y", "z")])[0].label == "support"


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"source_id": "a", "target_id": "b", "label": "agree"}\n', r"l\.jsonl:1: unknown label 'agree'"),
        ('{"source_id": "a", "target_id": "b", "label": "attack"}\n{"label": "attack"}\n', r"l\.jsonl:2: needs 'source_id'"),
        ('{"source_id": "a", "target_id": "b", "label": "attack"}\n{bad json}\n{"x": 1}\n', r"l\.jsonl:2: malformed JSON"),
        ('[1]\n', r"l\.jsonl:1: expected a JSON object"),
        ('{"source_id": "a", "target_id": "b", "label": "attack", "confidence": 3}\n', r"confidence 3.0 is not in \[0, 1\]"),
        ('{"source_id": "a", "target_id": "b", "label": "attack"}\n\n{"source_id": "a", "target_id": "b", "label": "support"}\n',
         r"l\.jsonl:3: ids 'a' -> 'b' is labelled 'support' here but 'attack' on line 1"),
    ],
)
def test_malformed_files(tmp_path: Path, content: str, message: str):
    f = tmp_path / "l.jsonl"
    f.write_text(content, encoding="utf-8")
    with pytest.raises(DataFormatError, match=message):
        RecordedClassifier(f)


def test_other_file_errors(tmp_path: Path):
    with pytest.raises(DataFormatError, match="not found"):
        RecordedClassifier(tmp_path / "missing.jsonl")
    (tmp_path / "l.xml").write_text("<x/>", encoding="utf-8")
    with pytest.raises(DataFormatError, match="unknown recorded-label format"):
        RecordedClassifier(tmp_path / "l.xml")
    (tmp_path / "l.csv").write_text("source_id,target_id,relation\na,b,attack\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match="no 'label' column"):
        RecordedClassifier(tmp_path / "l.csv")
    with pytest.raises(ConfigurationError):
        RecordedClassifier(tmp_path / "l.csv", unknown="guess")  # type: ignore[arg-type]


def test_torn_last_line_and_checkpoint_header_are_tolerated(tmp_path: Path):
    f = tmp_path / "run.pairs.jsonl"
    f.write_text(
        json.dumps({"argfaith_checkpoint": 1, "fingerprint": "x"}) + "\n"
        + json.dumps({"source_id": "a", "target_id": "b", "label": "support"}) + "\n"
        + '{"source_id": "a", "target_id": "c", "lab',
        encoding="utf-8",
    )
    clf = RecordedClassifier(f)
    assert clf.n_records == 1


def test_spec_parsing(tmp_path: Path):
    f = write_jsonl(tmp_path / "l.jsonl", ROWS)
    clf = make_recorded_classifier(f"{f}?unknown=no-relation&key=ids")
    assert clf.unknown == "no relation" and clf.key == "ids" and clf.name == "recorded:l.jsonl"
    with pytest.raises(ConfigurationError, match="unknown option 'mode'"):
        make_recorded_classifier(f"{f}?mode=x")
    with pytest.raises(ConfigurationError, match="needs a file"):
        make_recorded_classifier("")


def test_progress_callback(tmp_path: Path):
    clf = RecordedClassifier(write_jsonl(tmp_path / "l.jsonl", ROWS), unknown="no relation")
    seen = []
    clf.classify([PairQuery("a", "b")] * 2500, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(1000, 2500), (2000, 2500), (2500, 2500)]


def test_id_hit_with_other_texts_is_not_trusted_in_auto_mode(tmp_path: Path):
    # The silver ids name human spans; a sentence run reuses the id format for other texts.
    f = write_jsonl(tmp_path / "l.jsonl", [{"source_id": "d-1-1", "target_id": "d-PAR-1", "label": "attack",
                                            "source": "Span text.", "target": "Paragraph."}])
    q_same = PairQuery("Span  text.", "Paragraph.", source_id="d-1-1", target_id="d-PAR-1")
    q_other = PairQuery("A different sentence.", "Paragraph.", source_id="d-1-1", target_id="d-PAR-1")
    clf = RecordedClassifier(f, unknown="no relation")
    got = clf.classify([q_same, q_other])
    assert [p.label for p in got] == ["attack", "no relation"] and clf.id_text_mismatches == 1
    assert RecordedClassifier(f, key="ids").classify([q_other])[0].label == "attack"  # ids mode trusts ids


def test_fallback_classifies_only_unrecorded_pairs(tmp_path):
    """recorded:FILE?fallback=NAME: recorded labels where they exist, the fallback elsewhere."""
    from argfaith.mining.classifiers.base import PairQuery
    from argfaith.mining.classifiers.registry import make_classifier

    f = tmp_path / "l.jsonl"
    f.write_text('{"source": "a b c", "target": "d e f", "label": "attack"}\n', encoding="utf-8")
    clf = make_classifier(f"recorded:{f}?fallback=majority")
    preds = clf.classify([PairQuery("a  b c", "d e f"), PairQuery("x", "y")])
    assert [p.label for p in preds] == ["attack", "no relation"]
    assert clf.replayed == 1 and clf.unrecorded == 1 and "majority" in (clf.fingerprint or "")
    with pytest.raises(ConfigurationError, match="fallback"):
        make_classifier(f"recorded:{f}?fallback=recorded:{f}")
