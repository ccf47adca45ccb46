"""argfaith.mining."""
