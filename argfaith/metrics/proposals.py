"""Matching the proposal arguments of a source QBAF Q and a summary QBAF Q*.

The pairwise metrics of PAPER.md §5 (π_dpc, π_bc, π_εa) compare Q and Q* proposal by proposal and
assume both frameworks carry the *same* proposal arguments (one per provision of the debated
resolution). A summary QBAF that lacks a provision, or names one the source does not have, is
almost always a pipeline mistake, so the default policy is to refuse with an error naming the
missing and extra ids. ``on_mismatch="intersection"`` evaluates on the shared proposals instead and
the report records what was left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from argfaith.errors import DataFormatError

if TYPE_CHECKING:
    from argfaith.qbaf import QBAF

__all__ = ["OnMismatch", "ProposalMatch", "ProposalMismatchError", "match_proposals", "upgrade_legacy_proposal_ids",
           "harmonise_proposal_ids"]

OnMismatch = Literal["error", "intersection"]


class ProposalMismatchError(DataFormatError):
    """Q and Q* do not have the same proposal arguments (and the intersection was not requested)."""


@dataclass(frozen=True)
class ProposalMatch:
    """How the proposals of Q (source) and Q* (summary) were paired.

    Attributes
    ----------
    shared : tuple of str
        Proposal ids present in both, in source order; the pairwise metrics are computed on these.
    missing_in_summary : tuple of str
        Proposals of Q absent from Q* (or present there as a speech argument).
    extra_in_summary : tuple of str
        Proposals of Q* absent from Q (or present there as a speech argument).
    mode : {"error", "intersection"}
        The policy that was applied.
    """

    shared: tuple[str, ...]
    missing_in_summary: tuple[str, ...] = ()
    extra_in_summary: tuple[str, ...] = ()
    mode: OnMismatch = "error"

    @property
    def exact(self) -> bool:
        """True iff both frameworks have exactly the same proposal set."""
        return not self.missing_in_summary and not self.extra_in_summary


def _name(q: QBAF, role: str) -> str:
    return f"{role} QBAF {q.name!r}" if q.name else f"{role} QBAF"


def _ids_text(ids: tuple[str, ...], limit: int = 10) -> str:
    shown = ", ".join(repr(i) for i in ids[:limit])
    return f"[{shown}{', ...' if len(ids) > limit else ''}] ({len(ids)})" if len(ids) > limit else f"[{shown}]"


def match_proposals(source: QBAF, summary: QBAF, *, on_mismatch: OnMismatch = "error") -> ProposalMatch:
    """Pair the proposal arguments X_p of Q (``source``) and X_p* of Q* (``summary``).

    Parameters
    ----------
    source, summary : QBAF
        Q and Q*.
    on_mismatch : {"error", "intersection"}
        ``"error"`` (default) raises :class:`ProposalMismatchError` naming the missing and extra
        proposal ids when X_p ≠ X_p*; ``"intersection"`` keeps the shared ones.

    Returns
    -------
    ProposalMatch
    """
    if on_mismatch not in ("error", "intersection"):
        raise ValueError(f"on_mismatch must be 'error' or 'intersection', got {on_mismatch!r}")
    src = source.proposals
    summ = summary.proposals
    summ_set, src_set = set(summ), set(src)
    shared = tuple(p for p in src if p in summ_set)
    missing = tuple(p for p in src if p not in summ_set)
    extra = tuple(p for p in summ if p not in src_set)
    if (missing or extra) and on_mismatch == "error":
        parts = []
        if missing:
            parts.append(f"the {_name(summary, 'summary')} lacks source proposal(s) {_ids_text(missing)}")
        if extra:
            parts.append(f"it has proposal(s) {_ids_text(extra)} that the {_name(source, 'source')} does not have")
        # A proposal that became a speech argument on the other side is a common id clash: say so.
        clashes = [p for p in missing if p in summary] + [p for p in extra if p in source]
        hint = f"; {_ids_text(tuple(clashes))} exist on the other side as speech arguments" if clashes else ""
        raise ProposalMismatchError(
            "proposal sets differ: " + "; ".join(parts) + hint
            + f". Both QBAFs must carry the same proposal arguments; to evaluate on the {len(shared)} shared "
            "proposal(s) instead, pass --proposals intersection (API: on_mismatch='intersection')."
        )
    return ProposalMatch(shared, missing, extra, on_mismatch)


def upgrade_legacy_proposal_ids(q: QBAF) -> QBAF:
    """``q`` with its proposal arguments renamed from the old positional ids (``<debate>-PAR-<n>``)
    to the printed-number ids (``<debate>-P23``; :mod:`argfaith.datasets.provision_ids`), so that
    a QBAF mined before the change and one mined after it can be compared.

    The mapping needs the n-th paragraph's text, which a mined QBAF carries on its proposal
    arguments; ``q`` is returned unchanged when it has no old ids, or when a text is missing or
    the old ids are not 1..n of one debate (the scheme cannot be reconstructed then)."""
    import re

    from argfaith.datasets.provision_ids import ProvisionIdMap
    from argfaith.qbaf import qbaf_from_dict, qbaf_to_dict

    legacy = re.compile(r"^(?P<debate>.+)-PAR-(?P<n>\d+)$")
    found = {p: legacy.match(p) for p in q.proposals}
    if not any(found.values()):
        return q
    debates = {m.group("debate") for m in found.values() if m}
    numbers = sorted(int(m.group("n")) for m in found.values() if m)
    if len(debates) != 1 or numbers != list(range(1, len(numbers) + 1)):
        return q
    debate = debates.pop()
    by_n = {int(m.group("n")): p for p, m in found.items() if m}
    texts = [q.argument(by_n[n]).text for n in numbers]
    if any(not t for t in texts):
        return q
    mp = ProvisionIdMap.from_texts(debate, texts)  # type: ignore[arg-type]
    new = {by_n[n]: mp.ids[n - 1] for n in numbers}
    d = qbaf_to_dict(q)
    for a in d["arguments"]:
        a["id"] = new.get(a["id"], a["id"])
    for key in ("attacks", "supports"):
        d[key] = [[new.get(s, s), new.get(t, t)] for s, t in d.get(key, [])]
    return qbaf_from_dict(d, source=q.name or "QBAF")


def harmonise_proposal_ids(source: QBAF, summaries: list[QBAF]) -> tuple[QBAF, list[QBAF]]:
    """When some QBAFs name their proposals by the old positional ids and others by the current
    ones (a debate mined before the change, summaries after it), the old-id QBAFs are upgraded
    (:func:`upgrade_legacy_proposal_ids`); QBAFs whose proposal sets already agree — including
    hand-written ones that chose ``PAR-1`` ids themselves — are returned unchanged."""
    sets = [set(source.proposals)] + [set(s.proposals) for s in summaries]
    if all(x == sets[0] for x in sets):
        return source, summaries
    up_src = upgrade_legacy_proposal_ids(source)
    up = [upgrade_legacy_proposal_ids(s) for s in summaries]
    return up_src, up
