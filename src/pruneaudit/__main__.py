"""``python -m pruneaudit``: the ``pruneaudit`` command (:func:`pruneaudit.cli.main`)."""

from pruneaudit.cli import main

raise SystemExit(main(prog="python -m pruneaudit"))
