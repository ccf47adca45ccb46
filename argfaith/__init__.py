"""argfaith — is a summary of a debate faithful to the debate's arguments?

Subpackages: :mod:`argfaith.qbaf` (engine), :mod:`argfaith.mining` (text → QBAF),
:mod:`argfaith.metrics` (QBAFs → faithfulness numbers and reports), :mod:`argfaith.datasets`
(loaders), :mod:`argfaith.llm` (shared Anthropic plumbing).
"""

__version__ = "0.1.0"
