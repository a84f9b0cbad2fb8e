"""The book's report room: the pages computed from the executed notebooks (:mod:`.pages`), the
front page (:mod:`.front`, :mod:`.front_examples`), answer boxes (:mod:`.answer`), findings
tables (:mod:`.findings_table`), the one vocabulary (:mod:`.wording`, :mod:`.finding_ids`),
the book's generated pages (:mod:`.accounting`, :mod:`.appendix`, :mod:`.pooled`), the
banner (:mod:`.banner`), launch buttons (:mod:`.launch`), static files (:mod:`.assets`) and
the Sphinx extensions (:mod:`.sphinx_refs`, :mod:`.sphinx_minus`).

It reads findings and never trains: no import of it reaches the build room
(:mod:`pruneaudit.book.builder`), training or compression, but through the studies' parameter
declarations and Study 4's own tables, which train nothing (``lint-imports``, the contract
``report-never-trains`` of ``pyproject.toml``)."""
