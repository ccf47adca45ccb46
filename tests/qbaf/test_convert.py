"""ICCMA and DOT exports (argfaith.qbaf.convert)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings

from argfaith.qbaf import QBAF, Argument, load_qbaf
from argfaith.qbaf.bipolar import set_attacks
from argfaith.qbaf.convert import dot_escape, parse_iccma, read_iccma, to_dot, to_iccma, write_iccma
from argfaith.qbaf.errors import QBAFFormatError
from argfaith.qbaf.reference import set_attacks_reference
from argfaith.qbaf.strategies import qbafs


def test_iccma_of_worked_example(paper_dir):
    q = load_qbaf(paper_dir / "q.json")  # ids: p1 p2 s1 s2 s3 s4 s5 s6 -> 1..8
    text = to_iccma(q)
    # R = {s1→p1, s2→p1, s3→p1 (supported), s4→s1}, sorted by (attacker, target)
    assert text == "p af 8\n3 1\n4 1\n5 1\n6 3\n"
    assert to_iccma(set_attacks(q)) == text


def test_iccma_keeps_derived_self_attacks_and_comments():
    q = QBAF.from_arrays([0.2, 0.2], attacks=[(1, 0)], supports=[(0, 1)], ids=["a", 'b "x"\nnl'])
    text = to_iccma(q, comments=True)
    lines = text.splitlines()
    assert lines[0] == "p af 2"
    assert lines[1] == '# 1 "a"' and lines[2] == '# 2 "b \\"x\\"\\nnl"'  # JSON-quoted: one line
    assert lines[3:] == ["1 1", "2 1", "2 2"]
    assert parse_iccma(text) == (2, [(1, 1), (2, 1), (2, 2)])
    assert json.loads(lines[2].split(" ", 2)[2]) == 'b "x"\nnl'


@settings(max_examples=60, deadline=None)
@given(qbafs(max_size=8))
def test_iccma_round_trip_is_the_set_attack_relation(q):
    n, attacks = parse_iccma(to_iccma(q))
    assert n == q.n
    assert {(q.ids[i - 1], q.ids[j - 1]) for i, j in attacks} == set_attacks_reference(q)
    assert attacks == sorted(attacks)


def test_empty_framework_iccma():
    q = QBAF.from_arrays([])
    assert to_iccma(q) == "p af 0\n"
    assert parse_iccma("p af 0\n") == (0, [])


def test_write_and_read_iccma(tmp_path, paper_dir):
    q = load_qbaf(paper_dir / "qb.json")
    p = tmp_path / "qb.af"
    write_iccma(q, p)
    assert read_iccma(p) == (len(q.ids), [(3, 1), (4, 1)])


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "no 'p af <n>' header"),
        ("# only a comment\n", "no 'p af <n>' header"),
        ("p cnf 3\n", ":1: expected the header"),
        ("p af 2\n1\n", ":2: expected an attack"),
        ("p af 2\n1 x\n", ":2: expected an attack '<i> <j>', got '1 x'"),
        ("p af 2\n# c\n1 3\n", ":3: argument 3 outside 1..2"),
        ("p af 2\n0 1\n", ":2: argument 0 outside 1..2"),
    ],
)
def test_iccma_parse_errors_name_the_line(text, message):
    with pytest.raises(QBAFFormatError, match=re.escape(message)):
        parse_iccma(text, source="af.txt")


def test_read_iccma_missing_file(tmp_path):
    with pytest.raises(QBAFFormatError, match="no such file"):
        read_iccma(tmp_path / "missing.af")


# ------------------------------------------------------------------ DOT
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _unescape(s: str) -> str:
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\":
            nxt = s[i + 1]
            out.append({"n": "\n", "\\": "\\", '"': '"'}[nxt])  # any other escape is a bug
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def test_dot_of_worked_example(paper_dir):
    q = load_qbaf(paper_dir / "q.json")
    dot = to_dot(q)
    assert dot.startswith("digraph qbaf {") and dot.rstrip().endswith("}")
    assert re.search(r'"p1" \[label="p1\\nProvision 1 of the resolution.", shape=box', dot)
    assert re.search(r'"s1" \[label="s1", shape=ellipse', dot)
    assert '"s1" -> "p1" [color="#c0392b", style=solid, arrowhead=tee];' in dot
    assert '"s3" -> "s1" [color="#27ae60", style=dashed, arrowhead=normal];' in dot
    assert dot.count("->") == 5
    assert dot.count("arrowhead=tee") == 3 and dot.count("style=dashed") == 2


def test_dot_escapes_untrusted_text():
    evil = 'He said "stop" \\N \\G;\n}\ndigraph x { "a" -> "b" }\r\nend'
    q = QBAF.from_arguments(
        [Argument('p"1', "proposal", 0.5, text="Provision"), Argument("s\\1", text=evil)],
        attacks=[("s\\1", 'p"1')],
        debate=True,
        name='Debate "quoted"',
    )
    dot = to_dot(q, text_width=500)
    # Every line outside quoted strings is plain DOT syntax: exactly one graph, braces balanced.
    stripped = _QUOTED.sub('""', dot)
    assert stripped.count("{") == 1 and stripped.count("}") == 1
    assert "digraph x" not in stripped and "\\" not in stripped
    strings = [_unescape(m) for m in _QUOTED.findall(dot)]
    assert 'p"1' in strings and "s\\1" in strings and 'Debate "quoted"' in strings
    label = next(s for s in strings if s.startswith("s\\1\n"))
    # Whitespace (including the line breaks) is collapsed in the shown text; nothing else changes.
    assert label == "s\\1\n" + " ".join(evil.split())
    assert dot_escape("a\\Nb\r\nc") == "a\\\\Nb\\nc"


def test_dot_shortens_text_and_can_hide_it():
    q = QBAF.from_arguments([Argument("s1", text="word " * 40)])
    dot = to_dot(q, text_width=20)
    label = _QUOTED.findall(dot.splitlines()[3])[1]
    assert _unescape(label) == "s1\n" + ("word " * 4).strip()[:19] + "…"
    assert '[label="s1", shape=ellipse' in to_dot(q, text_width=0)
