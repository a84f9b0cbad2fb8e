"""Is a reshaping commit neutral? The smoke findings of every study, written as the pages write
them, and their SHA-256 digests.

    python benchmarks/findings_identity.py --store DIR --out FILE.json

For each study of the smoke profile (in build order) it builds the study's checked ``Params``,
calls ``run`` over the results store ``DIR`` (trained once, then read back), and writes
``findings(result)`` as ``<notebook>.findings.json`` (the page's writer) and ``numbers(result)``
beside it. ``FILE.json`` maps each file to its digest. Run it at a commit before a reshaping and
at the commit after, over the same store, and compare the two files: equal digests mean the
reshaping changed no finding (``--compare OTHER.json`` exits 1 and names each file that differs).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from pruneaudit.audit import findings_file
from pruneaudit.book.profiles import Profile, study_of
from pruneaudit.runs.store import ResultsStore
from pruneaudit.runtime import Runtime


def write_findings(store: Path, out_dir: Path) -> dict[str, str]:
    """Each smoke study's findings and numbers under ``out_dir``; file name -> SHA-256."""
    profile = Profile.read("smoke", {"store": str(store)})
    runtime = Runtime(threads=1)
    digests = {}
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in profile.check():
        study = study_of(name)
        params = profile.study_params(name)
        result = study.run(params, ResultsStore(params.store), progress=False, runtime=runtime)
        rows = study.findings(result)
        path = out_dir / f"{name}.findings.json"
        findings_file.write_findings_json(rows, path)
        numbers = out_dir / f"{name}.numbers.json"
        numbers.write_text(json.dumps(study.numbers(result), sort_keys=True, default=str))
        for file in (path, numbers):
            digests[file.name] = hashlib.sha256(file.read_bytes()).hexdigest()
            print(f"{digests[file.name][:16]}  {file.name}", flush=True)
    return digests


def differing(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The files whose digest differs between two runs, or that only one of them wrote."""
    return sorted(k for k in {*before, *after} if before.get(k) != after.get(k))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--compare", type=Path)
    args = parser.parse_args()
    digests = write_findings(args.store, args.out.with_suffix(""))
    args.out.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    if args.compare is None:
        return 0
    before = json.loads(args.compare.read_text())
    differ = differing(before, digests)
    for name in differ:
        print(f"differs: {name}", file=sys.stderr)
    print(f"{len(digests) - len(differ)}/{len(digests)} files identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
