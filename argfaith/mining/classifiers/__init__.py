"""Relation classifiers behind one protocol (see :mod:`argfaith.mining.classifiers.base`)."""
