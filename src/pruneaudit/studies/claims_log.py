"""Every study's claims and the record of changes made to them after they were declared.

``pruneaudit claims-log`` lists the claims whose quantity, comparability,
margin, paper value, headline or settings changed without an entry in the package's changelog
(``pruneaudit/audit/data/claims_changelog.csv``, :mod:`pruneaudit.audit.claims`) and exits 1
when there are any. ``--log REASON --seen yes|no [--verdicts FILE]`` appends one entry per such
claim (today's date; ``--verdicts``: a CSV ``claim,verdict_before,verdict_after`` of the quick
build's verdicts), and ``--page`` writes the methods page's table of changes
(``book/_claims_changelog.md``, :func:`changes_markdown`).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import pandas as pd

from pruneaudit.audit.claims import CHANGELOG_COLUMNS, Claim, changelog, fingerprint, unlogged
from pruneaudit.errors import PruneAuditError
from pruneaudit.studies import registry

PAGE = Path(__file__).resolve().parents[3] / "book" / "_claims_changelog.md"


def all_claims() -> list[Claim]:
    """The claims of every registered study, in book order."""
    return [claim for study in registry.studies() for claim in study.claims().values()]


def entries(claims: Sequence[Claim], *, seen: str, reason: str,
            verdicts: pd.DataFrame | None = None, date: str | None = None) -> pd.DataFrame:
    """One changelog row per claim in ``claims`` with its current fingerprint; ``verdicts``
    (columns ``claim``, ``verdict_before``, ``verdict_after``) fills the verdicts."""
    if seen not in ("yes", "no"):
        raise PruneAuditError(f"--seen must be yes or no (was our estimate seen?), got {seen!r}")
    if not reason.strip():
        raise PruneAuditError("give the reason for the change (--log REASON)")
    said = {} if verdicts is None else verdicts.set_index("claim").to_dict("index")
    day = date or datetime.date.today().isoformat()
    rows = [{"date": day, "study": c.study, "claim": c.id, "fingerprint": fingerprint(c),
             "estimate_seen": seen, "verdict_before": said.get(c.id, {}).get("verdict_before", ""),
             "verdict_after": said.get(c.id, {}).get("verdict_after", ""), "reason": reason}
            for c in claims]
    return pd.DataFrame(rows, columns=list(CHANGELOG_COLUMNS))


def changes_markdown() -> str:
    """The methods page's table of every recorded declaration and change, oldest first."""
    log = changelog()
    lines = ["| date | study | claim | our estimate seen | verdict before | verdict after | "
             "reason |", "|---|---|---|---|---|---|---|"]
    for row in log.itertuples():
        cells = (row.date, row.study, row.claim, row.estimate_seen, row.verdict_before or "—",
                 row.verdict_after or "—", row.reason.replace("|", "/"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def check_log(log: str | None = None, seen: str | None = None,
              verdicts: str | Path | None = None, page: bool = False) -> int:
    """``pruneaudit claims-log``: list the unlogged claims (exit status 1 where there are any);
    ``log`` (a reason) appends an entry per unlogged claim (``seen``: yes or no; ``verdicts``:
    a CSV ``claim,verdict_before,verdict_after``); ``page`` first writes :data:`PAGE`."""
    missing = unlogged(all_claims())
    if log:
        table = pd.read_csv(verdicts, dtype=str).fillna("") if verdicts else None
        changed = [c for c in all_claims() if f"{c.study} {c.id}" in missing]
        new = entries(changed, seen=seen or "", reason=log, verdicts=table)
        path = Path(str(resources.files("pruneaudit.audit").joinpath("data/claims_changelog.csv")))
        new.to_csv(path, mode="a", header=False, index=False)
        print(f"logged {len(new)} claims in {path}")
        return 0
    if page:
        PAGE.write_text(changes_markdown())
        print(f"wrote {PAGE}")
    for name in missing:
        print(f"unlogged: {name}")
    return 1 if missing else 0
