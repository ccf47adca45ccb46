"""`argfaith evaluate`."""
