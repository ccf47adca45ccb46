"""`argfaith summarize`."""
