"""Classifier names → relation classifiers (the ``--classifier`` option of every command).

Spec grammar: ``NAME[:ARG][?key=value&key=value]``.

=====================  ===============================================================
``offline``            the default (v2, issue 20): calibrated relation probabilities — pair features + MiniLM
                       cosines (logistic regression) x a MiniLM stance cross-encoder, onnxruntime
                       (``?prior=all-pairs&model=DIR&threads=N``)
``stance``             the previous default (v1): relatedness (pair features) x stance cross-encoder trained
                       on v1's rewrites-heavy corpus (``?prior=...&model=DIR&threads=N``)
``features``           the previous default: pair features + logistic regression, numpy only (``?prior=...&weights=FILE``)
``embedding``          MiniLM embeddings + features (extra ``embeddings``; ``?prior=...``)
``majority``           one label for all pairs (``?label=support``; default no relation)
``lexical``            TF-IDF overlap + polarity cues (``?threshold=0.15``)
``claude[:MODEL]``     the paper's prompts on Claude (``?prompt=few&mode=multi&batch=true``)
``recorded:FILE``      replay labels from a file (``?unknown=no-relation&key=ids``; ``fallback=NAME``: another
                       classifier for the pairs the file does not record)
=====================  ===============================================================

``prior`` (offline, embedding): the deployment class prior — ``balanced``, ``sampled``,
``all-pairs`` or ``attack=P;support=P;no relation=P`` (see :mod:`argfaith.mining.classifiers.prior`);
``decision`` (``bayes`` | ``match``) overrides the prior's decision rule.
Without it the model's own class-balanced posteriors are used, except in mining, which switches
to the all-pairs prior.

Heavy classifiers are imported only when asked for; :func:`available_classifiers` lists the names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from argfaith.errors import ConfigurationError
from argfaith.mining.classifiers.base import RelationClassifier

__all__ = ["make_classifier", "available_classifiers", "parse_spec", "TRAINABLE"]

#: Names whose classifier can be retrained per fold (``bench relations --cv``).
TRAINABLE = ("features", "embedding", "majority")


def parse_spec(spec: str) -> tuple[str, str | None, dict[str, str]]:
    """Split ``NAME[:ARG][?k=v&...]`` into (name, arg, options)."""
    if not spec or not spec.strip():
        raise ConfigurationError("empty classifier name; use one of: " + ", ".join(available_classifiers()))
    head, _, query = spec.strip().partition("?")
    name, sep, arg = head.partition(":")
    opts: dict[str, str] = {}
    for part in filter(None, query.split("&")):
        k, eq, v = part.partition("=")
        if not eq or not k:
            raise ConfigurationError(f"classifier option {part!r} in {spec!r} is not key=value")
        opts[k.strip()] = v.strip()
    return name.strip().lower(), (arg if sep else None), opts


def _no_options(name: str, opts: dict[str, str]) -> None:
    if opts:
        raise ConfigurationError(f"classifier {name!r} takes no options, got {', '.join(opts)}")


def _features(arg: str | None, opts: dict[str, str]) -> RelationClassifier:
    from argfaith.mining.classifiers.offline import OfflineRelationClassifier, load_offline_model

    from argfaith.mining.classifiers._linear import LinearModel

    _no_options("features", {k: v for k, v in opts.items() if k not in ("weights", "prior", "decision")})
    prior, decision = opts.get("prior") or None, opts.get("decision") or None
    if decision is not None and prior is None:
        raise ConfigurationError("features: decision= needs a prior= (e.g. ?prior=all-pairs&decision=bayes)")
    if "weights" in opts:
        model, meta = load_offline_model(opts["weights"])
        clf = OfflineRelationClassifier(model, prior=prior, decision=decision,
                                        reference_scores=LinearModel.load_arrays(opts["weights"]).get("reference_scores"))
        clf.metadata = meta
        return clf
    return OfflineRelationClassifier(prior=prior, decision=decision)


def _embedding(arg: str | None, opts: dict[str, str]) -> RelationClassifier:
    from argfaith.mining.classifiers.embedding import EmbeddingRelationClassifier

    _no_options("embedding", {k: v for k, v in opts.items() if k not in ("prior", "decision")})
    if opts.get("decision") and not opts.get("prior"):
        raise ConfigurationError("embedding: decision= needs a prior= (e.g. ?prior=all-pairs&decision=bayes)")
    return EmbeddingRelationClassifier(prior=opts.get("prior") or None, decision=opts.get("decision") or None)


def _threads(name: str, opts: dict[str, str]) -> int | None:
    threads = opts.get("threads")
    if threads is not None and (not threads.isdigit() or int(threads) < 1):
        raise ConfigurationError(f"{name}: threads must be a positive integer, got {threads!r}")
    if opts.get("decision") and not opts.get("prior"):
        raise ConfigurationError(f"{name}: decision= needs a prior= (e.g. ?prior=all-pairs)")
    return int(threads) if threads else None


def _offline(arg: str | None, opts: dict[str, str]) -> RelationClassifier:
    from argfaith.mining.classifiers.relmodel import RelationModelClassifier

    _no_options("offline", {k: v for k, v in opts.items() if k not in ("prior", "decision", "model", "threads")})
    threads = _threads("offline", opts)
    return RelationModelClassifier(opts.get("model") or None, prior=opts.get("prior") or None,
                                   decision=opts.get("decision") or None, threads=threads)


def _stance(arg: str | None, opts: dict[str, str]) -> RelationClassifier:
    from argfaith.mining.classifiers.stance import StanceRelationClassifier

    _no_options("stance", {k: v for k, v in opts.items() if k not in ("prior", "decision", "model", "threads")})
    threads = _threads("stance", opts)
    return StanceRelationClassifier(opts.get("model") or None, prior=opts.get("prior") or None,
                                    decision=opts.get("decision") or None, threads=threads)


def _majority(arg: str | None, opts: dict[str, str]) -> RelationClassifier:
    from argfaith.datasets.labels import NO_RELATION, normalise_label
    from argfaith.mining.classifiers.baselines import MajorityClassifier

    _no_options("majority", {k: v for k, v in opts.items() if k != "label"})
    raw = opts.get("label", NO_RELATION)
    label = normalise_label(raw)
    if label is None:
        raise ConfigurationError(f"majority: unknown label {raw!r}")
    return MajorityClassifier(label)


def _lexical(arg: str | None, opts: dict[str, str]) -> RelationClassifier:
    from argfaith.mining.classifiers.baselines import LexicalClassifier

    _no_options("lexical", {k: v for k, v in opts.items() if k != "threshold"})
    try:
        threshold = float(opts.get("threshold", 0.15))
    except ValueError:
        raise ConfigurationError(f"lexical: threshold {opts['threshold']!r} is not a number") from None
    return LexicalClassifier(threshold)


def _claude(arg: str | None, opts: dict[str, str]) -> RelationClassifier:
    from argfaith.mining.classifiers.claude import make_claude_classifier

    kw: dict[str, Any] = dict(opts)
    if arg:
        kw["model"] = arg
    return make_claude_classifier(**kw)


def _recorded(arg: str | None, opts: dict[str, str]) -> RelationClassifier:
    from argfaith.mining.classifiers.recorded import make_recorded_classifier

    if not arg:
        raise ConfigurationError("recorded: needs a file, e.g. --classifier recorded:labels.jsonl")
    fallback = None
    if "fallback" in opts:
        from argfaith.mining.classifiers.prior import mining_classifier

        name = opts.pop("fallback")
        if not name or name.strip().lower().startswith("recorded"):
            raise ConfigurationError(f"recorded: fallback must name another classifier (e.g. fallback=offline), got {name!r}")
        fallback = mining_classifier(make_classifier(name))
    query = "&".join(f"{k}={v}" for k, v in opts.items())
    return make_recorded_classifier(arg + (f"?{query}" if query else ""), fallback=fallback)


_FACTORIES: dict[str, Callable[[str | None, dict[str, str]], RelationClassifier]] = {
    "offline": _offline,
    "stance": _stance,
    "features": _features,
    "embedding": _embedding,
    "majority": _majority,
    "lexical": _lexical,
    "claude": _claude,
    "recorded": _recorded,
}


def available_classifiers() -> tuple[str, ...]:
    """The registered names."""
    return tuple(_FACTORIES)


def make_classifier(spec: str) -> RelationClassifier:
    """Build the classifier named by ``spec`` (see the module docstring).

    Raises
    ------
    ConfigurationError
        Unknown name or bad option.
    MissingExtraError
        The classifier needs an extra that is not installed.
    """
    name, arg, opts = parse_spec(spec)
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ConfigurationError(f"unknown classifier {spec!r}; available: {', '.join(available_classifiers())}")
    return factory(arg, opts)
