"""`argfaith study`."""
