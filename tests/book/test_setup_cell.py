"""The notebooks' Colab setup cell (kernels.publish.notebooks.setup_cell_source), run on a CPU machine:
ASYNC_BOOK_FORCE_CLONE=1 makes it act as on Colab, cloning into ASYNC_BOOK_CLONE_DIR."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from kernels.publish import notebooks as nbtools

pytestmark = pytest.mark.skipif(not shutil.which("git"), reason="needs git")

# Appended to the cell: where it left the process.
REPORT = "\nimport json; print(json.dumps({'cwd': os.getcwd(), 'path0': sys.path[0]}))"


def run_cell(source, cwd, clone_dir=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASYNC_BOOK_")}
    if clone_dir is not None:
        env.update(ASYNC_BOOK_FORCE_CLONE="1", ASYNC_BOOK_CLONE_DIR=str(clone_dir))
    return subprocess.run([sys.executable, "-c", source + REPORT], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def git(*args, cwd):
    subprocess.run(["git", "-c", "user.name=Test", "-c", "user.email=test@example.com",
                    "-c", "commit.gpgsign=false", *args], cwd=cwd, check=True,
                   capture_output=True, env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1",
                                             "GIT_CONFIG_GLOBAL": os.devnull})


@pytest.fixture
def book_repo(tmp_path):
    """A local repository with notebooks/ committed on the branch _config.yml names."""
    repo = tmp_path / "origin"
    (repo / "notebooks").mkdir(parents=True)
    (repo / "notebooks" / "README").write_text("the notebooks\n")
    git("init", "-q", "-b", nbtools.repository_branch(), cwd=repo)
    git("add", ".", cwd=repo)
    git("commit", "-q", "-m", "book", cwd=repo)
    return repo


def test_config_names_the_repository_and_branch():
    source = nbtools.setup_cell_source()
    assert source.startswith(nbtools.SETUP_MARKER)
    assert json.dumps(nbtools.repository_url()) in source
    assert json.dumps(nbtools.repository_branch()) in source


def test_every_notebook_opens_with_the_setup_cell_out_of_the_page():
    for path in nbtools.notebooks():
        first = next(c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code")
        assert "".join(first["source"]) == nbtools.setup_cell_source(), path.name
        assert "remove-input" in first["metadata"].get("tags", []), path.name


def test_outside_colab_only_puts_the_repository_root_on_the_path(tmp_path):
    here = tmp_path / "notebooks"
    here.mkdir()
    done = run_cell(nbtools.setup_cell_source(url="file:///nonexistent/repo.git"), cwd=here)
    assert done.returncode == 0, done.stderr
    where = json.loads(done.stdout.splitlines()[-1])
    assert os.path.realpath(where["cwd"]) == os.path.realpath(here)
    assert os.path.realpath(where["path0"]) == os.path.realpath(tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["notebooks"]


@pytest.mark.parametrize("bad", ["url", "branch"])
def test_a_failed_clone_says_what_to_set_and_stops_without_a_traceback(tmp_path, book_repo, bad):
    url = "file:///nonexistent/repo.git" if bad == "url" else book_repo.as_uri()
    branch = "no-such-branch" if bad == "branch" else nbtools.repository_branch()
    done = run_cell(nbtools.setup_cell_source(url=url, branch=branch), cwd=tmp_path,
                    clone_dir=tmp_path / "clone")
    assert done.returncode == 1
    out = done.stdout
    assert out.startswith(f"Could not clone {url} (branch {branch}):\n  fatal: "), out
    assert "repository: url: and branch:" in out and "_config.yml" in out
    assert "python -m kernels.publish.notebooks setup" in out
    assert "cwd" not in out   # stopped before the rest of the cell
    assert "Traceback" not in done.stderr and "CalledProcessError" not in out + done.stderr
    assert "could not be cloned" in done.stderr
    assert not (tmp_path / "clone").exists()


def test_clones_the_configured_branch_and_enters_its_notebooks(tmp_path, book_repo):
    clone = tmp_path / "clone"
    source = nbtools.setup_cell_source(url=book_repo.as_uri())
    done = run_cell(source, cwd=tmp_path, clone_dir=clone)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (clone / "notebooks" / "README").read_text() == "the notebooks\n"
    where = json.loads(done.stdout.splitlines()[-1])
    assert os.path.realpath(where["cwd"]) == os.path.realpath(clone / "notebooks")
    assert os.path.realpath(where["path0"]) == os.path.realpath(clone)
    branch = subprocess.run(["git", "-C", str(clone), "branch", "--show-current"],
                            capture_output=True, text=True, check=True).stdout.strip()
    assert branch == nbtools.repository_branch()
    again = run_cell(source, cwd=tmp_path, clone_dir=clone)   # a second run reuses the clone
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout.splitlines()[-1]) == where


def test_a_failed_clone_stops_run_all_in_a_jupyter_kernel(tmp_path, monkeypatch):
    """In Jupyter (and Colab) the SystemExit is an error reply without a traceback: the
    following cells do not run."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("ASYNC_BOOK_FORCE_CLONE", "1")
    monkeypatch.setenv("ASYNC_BOOK_CLONE_DIR", str(tmp_path / "clone"))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(nbtools.setup_cell_source(url="file:///nonexistent/x.git")),
                nbformat.v4.new_code_cell("print('the next cell ran')")]
    client = nbclient.NotebookClient(nb, timeout=120, startup_timeout=180, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    with pytest.raises(nbclient.exceptions.CellExecutionError):
        client.execute()
    outputs = nb.cells[0].outputs
    assert "Could not clone file:///nonexistent/x.git" in outputs[0]["text"]
    error = next(o for o in outputs if o["output_type"] == "error")
    assert error["ename"] == "SystemExit"
    assert not any("CalledProcessError" in line or "Traceback" in line
                   for line in error["traceback"])
    assert nb.cells[1].outputs == []
