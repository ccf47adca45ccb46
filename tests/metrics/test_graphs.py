"""Names a reader can use in the report's graphs: one label per speaker, merged spellings, summary
nodes by their first words, readable label colours, a debate drawn per provision."""

from __future__ import annotations

import re

import pytest

from argfaith.metrics.evaluate import evaluate
from argfaith.metrics.render import render
from argfaith.metrics.render.graphs import WHOLE_DEBATE_LIMIT, graph_view, provision_graphs
from argfaith.metrics.render.layout import contrast_ratio, sigma_fill, text_fill
from argfaith.metrics.render.speakers import speaker_index, speaker_key
from argfaith.qbaf import QBAF, Argument

# The EP debate CRE-20060427-ITEM-003 spells its speakers like this.
EP_SPEAKERS = ["Manolis Mavrommatis (PPE-DE),", "Ján Figeľ,", "Marianne Mikko (PSE). –", "Marios Matsakis (ALDE). –",
               "Ján Figel',", "Maria Badia i Cutchet,"]


def test_spellings_merge_and_labels_are_unique_per_person():
    idx = speaker_index(EP_SPEAKERS)
    assert speaker_key("Ján Figeľ,") == speaker_key("Ján Figel',") == "jan figel"
    fig = idx["Ján Figel',"]
    assert fig is idx["Ján Figeľ,"] and fig.name == "Ján Figeľ" and fig.also == "also written Ján Figel'"
    people = {s.key: s for s in idx.values()}
    assert len(people) == 5
    labels = [s.label for s in people.values()]
    assert len(set(labels)) == 5 and {"MMav", "MMi", "MMat", "JF", "MBI"} == set(labels)


def _debate(n_speech: int = 70) -> QBAF:
    speakers = EP_SPEAKERS * (n_speech // len(EP_SPEAKERS) + 1)
    args = [Argument("D-PAR-1", "proposal", 0.5, text="1. Welcomes the proposal"), Argument("D-PAR-2", "proposal", 0.5, text="2. Notes")]
    args += [Argument(f"D-4-{i:03d}-1", text=f"Speech argument number {i} about languages", speaker=speakers[i]) for i in range(n_speech)]
    sup = [(f"D-4-{i:03d}-1", "D-PAR-1") for i in range(0, 10)] + [(f"D-4-{i:03d}-1", f"D-4-{i - 10:03d}-1") for i in range(10, n_speech)]
    att = [("D-4-015-1", "D-PAR-2")]
    return QBAF.from_arguments(args, attacks=att, supports=sup, debate=True, name="D")


def _summary() -> QBAF:
    args = [Argument("D-PAR-1", "proposal", 0.5), Argument("D-PAR-2", "proposal", 0.5),
            Argument("S-1", text="Most speakers supported the indicator as a good incentive"), Argument("S-2", text="Several speakers criticised it")]
    return QBAF.from_arguments(args, supports=[("S-1", "D-PAR-1")], attacks=[("S-2", "D-PAR-1")], debate=True, name="S")


def test_node_labels_are_unique_and_summary_nodes_show_their_first_words():
    r = evaluate(_debate(), _summary())
    g = graph_view(r.source, "source", "g0", proposal_order=list(r.source.strengths))
    labels = {n.id: n.label for n in g.layout.nodes}
    assert labels["D-4-000-1"] == "MMav1" and labels["D-4-002-1"] == "MMi1" and labels["D-4-003-1"] == "MMat1"
    assert labels["D-4-001-1"] == "JF1" and labels["D-4-004-1"] == "JF2"  # Figeľ and Figel' are one person
    speech = [v for i, v in labels.items() if not i.startswith("D-PAR")]
    assert len(speech) == len(set(speech))
    assert any("Ján Figeľ (also written Ján Figel')" in sp for _, sp, _ in g.speakers)
    s = graph_view(r.summary, "summary", "g1", proposal_order=list(r.source.strengths))
    slabels = {n.id: n.label for n in s.layout.nodes}
    assert slabels["S-1"].startswith("Most speakers") and not slabels["S-1"].startswith("#")


@pytest.mark.parametrize("sigma", [i / 20 for i in range(21)])
def test_node_labels_reach_wcag_aa_contrast(sigma):
    fill = sigma_fill(sigma)
    assert contrast_ratio(fill, text_fill(fill)) >= 4.5
    assert text_fill(sigma_fill(1.0)) == "#ffffff" and text_fill(sigma_fill(0.0)) == "#000000"


def test_a_large_debate_is_drawn_per_provision():
    q = _debate(WHOLE_DEBATE_LIMIT + 20)
    r = evaluate(q, _summary())
    pg = provision_graphs(r.source, {"D-PAR-1": ["D-4-075-1"]}, proposal_order=list(r.source.strengths))
    g1 = pg["D-PAR-1"]
    assert g1.n_direct == 10 and g1.n_paths == 1 and g1.n_reaching == WHOLE_DEBATE_LIMIT + 20  # every chain ends in 0..9
    drawn = {n.id for n in g1.layout.nodes}
    # the direct supporters, and the path 75 → 65 → 55 → … → 5 → PAR-1
    assert {f"D-4-{i:03d}-1" for i in range(10)} <= drawn and {"D-4-075-1", "D-4-065-1", "D-4-015-1"} <= drawn
    assert "D-4-076-1" not in drawn and g1.n_drawn == 10 + 7
    assert pg["D-PAR-2"].n_direct == 1
    html = render(r, "html")
    assert html.count('<details class="pgraph">') == 2 and "too dense to read whole" in html
    assert 'data-role="summary"' in html  # the small summary is still drawn whole
    assert re.search(r'fill="#ffffff">', html) or re.search(r'fill="#000000">', html)
