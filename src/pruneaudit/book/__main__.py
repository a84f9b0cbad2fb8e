"""``python -m pruneaudit.book build|run ...``."""

from pruneaudit.book.runner import main

raise SystemExit(main())
