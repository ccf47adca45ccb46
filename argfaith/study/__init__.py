"""argfaith.study — the case study over a corpus of debates and their summaries (issue 5).

Wiring code, like :mod:`argfaith.cli` and :mod:`argfaith.bench`: it joins datasets, mining and
metrics. ``argfaith study`` is a thin layer over :func:`run_study`:

- :mod:`.corpus` finds the debates with summaries and describes every summary file;
- :mod:`.config` holds the settings and the keys that decide what a rerun may reuse;
- :mod:`.runner` mines (cached, resumable), evaluates and writes per-item outputs, in parallel;
- :mod:`.rows`, :mod:`.outputs`, :mod:`.plots` build the tables, the HTML index and the plots;
- :mod:`.dryrun` prices the whole study with Claude without calling anything;
- :mod:`.sources` computes source-only statistics over the whole debate corpus;
- :mod:`.fingerprint` makes sure cached labels of a different classifier are never reused.
"""

from argfaith.study.config import StudyConfig, resolve_baselines
from argfaith.study.corpus import DebateItem, StudyCorpus, SummaryFile, discover_study
from argfaith.study.fingerprint import FingerprintedClassifier, classifier_fingerprint
from argfaith.study.runner import PreparedStudy, StudyPaths, StudyResult, prepare_study, run_study

__all__ = [
    "StudyConfig", "resolve_baselines",
    "DebateItem", "StudyCorpus", "SummaryFile", "discover_study",
    "FingerprintedClassifier", "classifier_fingerprint",
    "PreparedStudy", "StudyPaths", "StudyResult", "prepare_study", "run_study",
]
