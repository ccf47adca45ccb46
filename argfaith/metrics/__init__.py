"""argfaith.metrics."""
