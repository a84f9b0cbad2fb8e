"""``python -m pruneaudit.book build|run|compute|plan|live ...``: the ``pruneaudit`` command
(:func:`pruneaudit.cli.main`) under its older name.

``compute`` and ``plan`` import none of the notebook stack (papermill, Jupyter).
"""

from pruneaudit.cli import main

raise SystemExit(main(prog="python -m pruneaudit.book"))
