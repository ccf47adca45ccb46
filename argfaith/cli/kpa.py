"""`argfaith kpa`."""
