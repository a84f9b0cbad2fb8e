"""The book's build room: the plan (:mod:`.plan`), the runner (:mod:`.runner`), the pool of
processes (:mod:`.parallel`), progress (:mod:`.progress`), the studies' computations without
notebooks (:mod:`.compute`), what a study notebook calls (:mod:`.notebook`), live mode
(:mod:`.live`) and replications (:mod:`.replication`).

It may import the report room (:mod:`pruneaudit.book.report`) to write the pages, never the
other way round (``lint-imports``, ``pyproject.toml``). Its public names are
:mod:`pruneaudit.book`'s."""
