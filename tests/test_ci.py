""".ci/run: runs the README's two set-up commands verbatim, points ARGFAITH_DATA at ../shared/data
when that folder exists (so the real-data tests run), and its venv is git-ignored."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _dry_run(clone: Path, env_data: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "CI_DRY_RUN": "1"}
    if env_data is not None:
        env["ARGFAITH_DATA"] = env_data
    return subprocess.run(["bash", str(clone / ".ci" / "run")], capture_output=True, text=True, env=env, timeout=60)


def _clone(tmp: Path) -> Path:
    repo = tmp / "work" / "argfaith"
    (repo / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "run", repo / ".ci" / "run")
    shutil.copy(ROOT / "README.md", repo / "README.md")
    return repo


def test_runs_the_readme_commands_and_finds_the_shared_data(tmp_path):
    repo = _clone(tmp_path)
    r = _dry_run(repo)
    assert r.returncode == 0, r.stderr
    assert "ARGFAITH_DATA=<unset" in r.stdout  # no ../shared/data beside this clone
    readme_lines = [ln[4:] for ln in (ROOT / "README.md").read_text(encoding="utf-8").splitlines() if ln.startswith("    pip install")]
    main_job = next(ln for ln in readme_lines if "argfaith evaluate" in ln)
    tests = next(ln for ln in readme_lines if ln.endswith("&& pytest"))
    assert f"+ {main_job}\n+ {tests}\n" in r.stdout
    data = tmp_path / "work" / "shared" / "data"
    data.mkdir(parents=True)
    r = _dry_run(repo)
    assert f"ARGFAITH_DATA={data}\n" in r.stdout
    r = _dry_run(repo, env_data="/elsewhere")  # an explicit setting wins
    assert "ARGFAITH_DATA=/elsewhere\n" in r.stdout


def test_fails_when_the_readme_loses_its_commands(tmp_path):
    repo = _clone(tmp_path)
    (repo / "README.md").write_text("# argfaith\n\nno commands here\n", encoding="utf-8")
    r = _dry_run(repo)
    assert r.returncode == 1 and "README.md lost its set-up commands" in r.stderr


def test_the_ci_venv_is_ignored():
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert ".venv-ci/" in ignored
    r = subprocess.run(["git", "check-ignore", "-q", ".venv-ci/bin/python"], cwd=ROOT, capture_output=True)
    assert r.returncode == 0
