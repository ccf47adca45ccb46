"""argfaith.bench: library code behind ``argfaith bench`` (wires datasets, classifiers and metrics)."""
