"""Kept importable for the README's cluster recipes: this name is :mod:`pruneaudit.runs.store`."""

import sys

from pruneaudit.runs import store as _module

sys.modules[__name__] = _module
