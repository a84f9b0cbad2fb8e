"""Kept importable for the README's cluster recipes: this name is :mod:`pruneaudit.runs.grid`."""

import sys

from pruneaudit.runs import grid as _module

sys.modules[__name__] = _module
