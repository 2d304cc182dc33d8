"""kernels.measure.bench and timing: the benchmark's command line, GPU timing, and the tools'
files (the recorded results: test_recorded.py)."""

import json

import numpy as np
import pytest

import kernels
from kernels.measure import bench, nsight, recorded, timing


@pytest.mark.gpu
def test_measure_on_the_gpu():
    rows = bench.measure(["async_halo", "pipelined", "cupyx.ndimage.correlate1d"], 2**20, 5)
    assert {r.name for r in rows} >= {"copy", "async_halo", "pipelined"}
    assert all(r.median_us > 0 and r.copy_us > 0 for r in rows)


def test_bench_cli_prints_the_ncu_metrics(capsys):
    bench.main(["--ncu-metrics"])
    assert capsys.readouterr().out.strip() == ",".join(nsight.METRICS)


def test_bench_cli_needs_a_gpu():
    if kernels.gpu_available():
        pytest.skip("this machine has a GPU: the benchmark would run")
    with pytest.raises(SystemExit, match="the benchmark needs a GPU"):
        bench.main(["--quick"])


def test_a_graph_replay_is_about_as_long_at_every_size():
    assert timing.launches_per_graph(1) == timing.LAUNCHES_PER_GRAPH
    assert timing.launches_per_graph(2**21) == 50
    assert timing.launches_per_graph(2**22) == 25
    assert timing.launches_per_graph(2**26) == timing.launches_per_graph(2**31 - 1) == 2


@pytest.mark.gpu
def test_time_us_replays_a_graph_at_every_size_and_times_other_streams_with_events():
    """Both methods, for a plain function (the copy) and for a Launch (a callable object)."""
    import cupy
    for n, method in ((2**16, "graph"), (2**23, "graph")):
        x, w = (cupy.asarray(a) for a in kernels.random_inputs(n, 5, 0))
        y = cupy.zeros_like(x)
        times, used = timing.time_us(timing.copy_fn(x, y), n, n_repeat=20)
        assert used == method and np.all(times > 0)
        assert bool((y == x).all())
        launch = kernels.prepare("async_halo", x, w, y)
        times, used = timing.time_us(launch, n, n_repeat=20)
        assert used == method and np.all(times > 0)
        kernels.assert_correct(y, x.get(), w.get())
        times, used = timing.time_us(launch, n, n_repeat=20, graph=False)
        assert used == "events" and np.all(times > 0)


# --- the tools' files: --out checked before a run, written first and atomically --------------

@pytest.mark.parametrize("bad", ["missing/run.json", "run.txt", "."])
def test_bench_out_is_checked_before_the_run(bad, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bench, "run", lambda **kw: pytest.fail("ran with a bad --out"))
    with pytest.raises(SystemExit) as caught:
        bench.main(["--quick", "--out", str(tmp_path / bad)])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: python -m kernels.measure.bench") and "--out" in err


def test_bench_writes_what_it_measured_even_when_the_table_fails(tmp_path, monkeypatch):
    result = {"provenance": {"device": "fake"}, "rows": [{"name": "copy"}]}
    monkeypatch.setattr(bench, "device_info", lambda: {"backend": "gpu"})
    monkeypatch.setattr(bench, "run", lambda quick, progress: result)
    monkeypatch.setattr(bench, "table", lambda r: r["rows"][0]["median_us"])   # a KeyError
    out = tmp_path / "run.json"
    out.write_text("an older run")
    with pytest.raises(KeyError):
        bench.main(["--out", str(out)])
    assert json.loads(out.read_text()) == result
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]     # no temporary file left


def test_an_interrupted_write_leaves_the_old_file_whole(tmp_path, monkeypatch):
    from kernels import files
    out = tmp_path / "table.json"
    files.atomic_write(out, '{"old": 1}')
    out.chmod(0o640)

    def fail(src, dst):
        raise OSError("disk full")
    monkeypatch.setattr(files.os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        files.write_json(out, {"new": 2})
    assert out.read_text() == '{"old": 1}' and [p.name for p in tmp_path.iterdir()] == [out.name]
    monkeypatch.undo()
    files.write_json(out, {"new": 2})
    assert json.loads(out.read_text()) == {"new": 2} and (out.stat().st_mode & 0o777) == 0o640


def test_a_corrupted_recording_is_named_with_its_line(tmp_path, monkeypatch):
    (tmp_path / "broken.json").write_text('{"provenance": {\n  "device": "H200\n')
    monkeypatch.setattr(recorded, "RECORDED", tmp_path)
    with pytest.raises(ValueError, match=r"broken.json is not valid JSON .*line 2"):
        recorded.load("broken")
