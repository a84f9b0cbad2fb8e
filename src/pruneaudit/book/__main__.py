"""``python -m pruneaudit.book build|run|compute|plan|live ...``: the ``pruneaudit`` command
(:func:`pruneaudit.cli.main`) under its older name.

``compute`` and ``plan`` import none of the notebook stack (papermill, Jupyter).
"""

import os
import sys

if sys.argv[1:2] == ["compute"]:
    # OpenMP threads that wait by spinning hold their cores between torch's parallel regions, as
    # the runner says for its kernels; set before torch loads (a value the user set is kept).
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from pruneaudit.cli import main  # noqa: E402

raise SystemExit(main(prog="python -m pruneaudit.book"))
