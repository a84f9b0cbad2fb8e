"""``python -m pruneaudit``: the ``pruneaudit`` command (:func:`pruneaudit.cli.main`)."""

from pruneaudit import cli

raise SystemExit(cli.main(prog="python -m pruneaudit"))
