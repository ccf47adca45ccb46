"""argfaith.llm."""
