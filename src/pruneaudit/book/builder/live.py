"""Live mode for workshops: the study notebooks in JupyterLab on 127.0.0.1 (``make live``).

JupyterLab works on copies of ``nbs/`` in the git-ignored folder ``live/`` (never on
``book/studies/``, so autosave cannot overwrite the book's executed notebooks), made for one
profile (``--profile``, default ``quick``): each copy's parameters cell holds that profile's
values, and the kernels read other notebooks' parameters (Study 5's ``study4``) from it
(``$PRUNEAUDIT_PAGE_PROFILE``, :func:`pruneaudit.book.setup`), so *Run All* on a copy runs what
``pruneaudit run NAME --profile PROFILE`` runs. A copy that exists is kept (a
participant's edits survive a restart); ``--fresh`` replaces the copies, and is needed to change
their profile.
The server's kernels get absolute settings for the data root and the results store, so a kernel
whose working directory is ``live/`` reads the same store as ``make book`` and trains nothing
that is already there.

Command line::

    pruneaudit live [--profile quick] [--port 8888] [--fresh] [--no-browser]
"""

from __future__ import annotations

import ast
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from pruneaudit import config, runtime
from pruneaudit.book.builder.notebook import DEFAULT_PROFILE, PAGE_PROFILE_ENV
from pruneaudit.book.paths import NBS, REPO
from pruneaudit.book.profiles import Profile, notebook_reads
from pruneaudit.errors import PruneAuditError

#: The folder JupyterLab serves: copies of ``nbs/`` (git-ignored).
LIVE = REPO / "live"
HOST = "127.0.0.1"
#: The file in the live folder naming the profile its copies were made for.
PROFILE_MARK = ".profile"


def with_values(source: str, values: Mapping[str, object]) -> str:
    """A parameters cell's ``source`` with the literal of each name in ``values`` replaced by
    that value (``epochs: int = 1`` -> ``epochs: int = 2``); lines already holding the value,
    and comments, are kept."""
    edits = []
    for stmt in ast.parse(source).body:
        target = stmt.target if isinstance(stmt, ast.AnnAssign) else (
            stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None)
        if not isinstance(target, ast.Name) or target.id not in values or stmt.value is None:
            continue
        if ast.literal_eval(stmt.value) != values[target.id]:
            edits.append((stmt.value, repr(values[target.id])))
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line.encode()))
    data = source.encode()
    for node, text in sorted(edits, key=lambda e: e[0].lineno, reverse=True):
        start = offsets[node.lineno - 1] + node.col_offset
        end = offsets[node.end_lineno - 1] + node.end_col_offset
        data = data[:start] + text.encode() + data[end:]
    return data.decode()


def copy_for_profile(source: Path, target: Path, profile: Profile) -> None:
    """Copy the notebook ``source`` to ``target`` with the profile's values in its cell tagged
    ``parameters`` (the parameters it reads from other notebooks left for
    :func:`pruneaudit.book.setup` to resolve); a byte copy when they are its defaults."""
    values = profile.values(source.stem)
    for name in notebook_reads(source.stem):
        values.pop(name, None)
    nb = json.loads(source.read_text())
    changed = False
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and "parameters" in cell["metadata"].get("tags", []):
            text = "".join(cell["source"])
            new = with_values(text, values)
            if new != text:
                new = f"# This copy holds the {profile.label} profile's values (make live).\n" + new
                cell["source"], changed = new.splitlines(keepends=True), True
    if changed:
        target.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    else:
        shutil.copy2(source, target)


def prepare_live(
    live_dir: str | os.PathLike = LIVE, *, fresh: bool = False, profile: str = DEFAULT_PROFILE
) -> list[Path]:
    """Copy ``nbs/*.ipynb`` (with ``profile``'s values: :func:`copy_for_profile`) and
    ``nbs/profiles/`` into ``live_dir``; return the notebook copies.

    Existing copies are kept unless ``fresh``; copies made for another profile are an error
    naming ``--fresh``. ``live_dir`` must not be ``book/studies`` (or inside it): the live
    server would then autosave over the book's executed notebooks.
    """
    live_dir = Path(live_dir).resolve()
    studies = (REPO / "book" / "studies").resolve()
    if live_dir == studies or studies in live_dir.parents:
        raise PruneAuditError(
            f"live folder {live_dir} is inside book/studies/: JupyterLab would autosave over the "
            "book's executed notebooks; use the default live/ folder"
        )
    sources = sorted(NBS.glob("*.ipynb"))
    if not sources:
        raise PruneAuditError(f"no notebooks in {NBS}: is this a complete clone?")
    mark = live_dir / PROFILE_MARK
    made_for = mark.read_text().strip() if mark.is_file() else DEFAULT_PROFILE
    kept = [s for s in sources if (live_dir / s.name).exists()]
    if kept and not fresh and made_for != profile:
        raise PruneAuditError(
            f"the copies in {live_dir} were made for profile {made_for}, not {profile}: add "
            "--fresh to replace them (edits in them are lost), or use --profile " + made_for
        )
    read = Profile.read(profile)
    live_dir.mkdir(parents=True, exist_ok=True)
    copies = []
    for source in sources:
        target = live_dir / source.name
        if fresh or not target.exists():
            copy_for_profile(source, target, read)
        copies.append(target)
    mark.write_text(profile + "\n")
    profiles = live_dir / "profiles"
    if fresh or not profiles.exists():
        shutil.copytree(NBS / "profiles", profiles, dirs_exist_ok=True)
    return copies


def _absolute(value: str) -> str:
    path = Path(value).expanduser()
    return str(path if path.is_absolute() else (REPO / path).resolve())


def live_environment(
    base: Mapping[str, str] | None = None, profile: str = DEFAULT_PROFILE
) -> dict[str, str]:
    """The server's environment: ``base`` (default ``os.environ``) with absolute data and store
    settings (relative ones resolved against the repository), the package's ``src`` first on
    ``PYTHONPATH``, the copies' ``profile`` as ``$PRUNEAUDIT_PAGE_PROFILE`` and no book runner's
    kernel record (live pages are not the static book: charts carry their own JavaScript)."""
    env = dict(os.environ if base is None else base)
    env[PAGE_PROFILE_ENV] = profile
    env[config.STORE_ENV] = _absolute(env.get(config.STORE_ENV, "results"))
    if env.get(config.DATA_ENV):
        env[config.DATA_ENV] = _absolute(env[config.DATA_ENV])
    else:
        found = [p for p in (REPO / "data", REPO.parent / "shared" / "data") if p.is_dir()]
        if found:
            env[config.DATA_ENV] = str(found[0].resolve())
    src = str(REPO / "src")
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != src]
    env["PYTHONPATH"] = os.pathsep.join([src, *paths])
    env.pop(runtime.KERNEL_ENV, None)
    return env


@dataclass(frozen=True)
class Lab:
    """A JupyterLab server of the live copies: loopback only, rooted at ``live_dir``, on
    ``port``; ``token`` None: a random one (:func:`start_lab`)."""

    live_dir: str | os.PathLike = LIVE
    port: int = 8888
    token: str | None = None
    open_browser: bool = True

    @property
    def url(self) -> str:
        """The server's base URL."""
        return f"http://{HOST}:{self.port}"

    def command(self) -> list[str]:
        """The ``jupyter lab`` command line: loopback only, rooted at ``live_dir``, no news
        fetch."""
        command = [
            sys.executable,
            "-m",
            "jupyterlab",
            f"--ServerApp.ip={HOST}",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--ServerApp.root_dir={Path(self.live_dir).resolve()}",
            f"--ServerApp.open_browser={self.open_browser}",
            # No request off the machine: no news feed, no update check.
            "--LabApp.news_url=",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--LabApp.extension_manager=readonly",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.append("--allow-root")  # containers and CI run as root
        if self.token is not None:
            command.append(f"--IdentityProvider.token={self.token}")
        return command


def start_lab(
    lab: Lab = Lab(),
    *,
    fresh: bool = False,
    profile: str = DEFAULT_PROFILE,
    wait: float = 60.0,
    log: str | os.PathLike | None = None,
) -> subprocess.Popen:
    """Prepare ``lab.live_dir`` for ``profile`` and start ``lab``; return the process once the
    server answers (or raise after ``wait`` seconds, the server stopped). Without a token, a
    random one; the URL with it is printed."""
    _require_jupyterlab()
    if lab.token is None:
        lab = replace(lab, token=secrets.token_hex(16))
    prepare_live(lab.live_dir, fresh=fresh, profile=profile)
    out = open(log, "w") if log is not None else None  # noqa: SIM115
    process = subprocess.Popen(
        lab.command(),
        cwd=str(Path(lab.live_dir).resolve()),
        env=live_environment(profile=profile),
        stdout=out,
        stderr=subprocess.STDOUT,
    )
    url, token = lab.url, lab.token
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise PruneAuditError(
                f"JupyterLab exited with {process.returncode} before answering on {url} "
                f"(port {lab.port} in use? try --port)"
            )
        try:
            with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2):
                break
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.25)
    else:
        stop_lab(process)
        raise PruneAuditError(f"JupyterLab did not answer on {url} within {wait:.0f} s")
    print(f"JupyterLab on {url}/lab?token={token}  (folder {Path(lab.live_dir).resolve()})")
    return process


def stop_lab(process: subprocess.Popen, timeout: float = 20.0) -> int:
    """Stop the server (SIGTERM, then SIGKILL after ``timeout``); return its exit code."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode


def _require_jupyterlab() -> None:
    try:
        import jupyterlab  # noqa: F401
    except ImportError:
        raise PruneAuditError(
            "live mode needs JupyterLab: pip install -e '.[book]' (or make setup)"
        ) from None


def serve(port: int = 8888, profile: str = DEFAULT_PROFILE, *, fresh: bool = False,
          open_browser: bool = True) -> int:
    """``pruneaudit live`` (``make live``): prepare ``live/`` and run JupyterLab until
    interrupted; the exit status."""
    process = start_lab(Lab(port=port, open_browser=open_browser), fresh=fresh, profile=profile)
    print("Ctrl-C stops the server; your edits stay in live/.")
    try:
        process.wait()
    except KeyboardInterrupt:
        pass
    finally:
        stop_lab(process)
    return 0
