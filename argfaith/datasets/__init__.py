"""argfaith.datasets."""
