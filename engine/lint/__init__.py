"""`knap lint`: the checks, the prerequisite graph, suppressions, fixes, the cache and the runner."""

from .runner import LintResult, lint

__all__ = ["LintResult", "lint"]
