from tests.llm.helpers import api_key, sleeps  # noqa: F401  (fixtures)
