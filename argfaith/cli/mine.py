"""`argfaith mine`."""
