"""``python -m pruneaudit.book build|run|compute ...``.

``compute`` is dispatched without importing the runner, so it needs no notebook stack
(:mod:`pruneaudit.book.compute`).
"""

import os
import sys

if sys.argv[1:2] == ["compute"]:
    # OpenMP threads that wait by spinning hold their cores between torch's parallel regions, as
    # the runner says for its kernels; set before torch loads (a value the user set is kept).
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from pruneaudit.book.compute import main
else:
    from pruneaudit.book.runner import main

raise SystemExit(main())
