"""The benchmark's command line and GPU timing, the listings, and the explore widget (the
recorded results: test_recorded.py)."""

import json

import nbformat
import numpy as np
import pytest

import kernels
from kernels.measure import bench, nsight, recorded, timing
from kernels.teach import explore, listing, widgets
from support import ROOT

CODE_COLUMN = 82  # characters of code that fit the book's code column at 1280 px (book/_static/reader.css)


def test_diff_marks_what_changed():
    d = listing.diff_text("tiled_sync", "async_halo")
    added = [l for l in d.splitlines() if l.startswith("+") and not l.startswith("+++")]
    assert any("memcpy_async" in l for l in added)
    assert any("consumer_wait" in l for l in added)
    assert not any("__syncthreads" in l for l in added)    # the barrier was already there


def test_listings_and_code_cells_fit_the_code_column():
    """Every CUDA source the book shows and every notebook code cell (the exercise skeletons'
    cells too) keeps its lines within CODE_COLUMN characters: a longer one hides behind a
    horizontal scroll."""
    sources = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
               for pattern in ("kernels/*.cu", "kernels/*.cuh", "kernels/exercises/*.cu")
               for p in sorted(ROOT.glob(pattern))}
    for nb in sorted(ROOT.glob("notebooks/*.ipynb")):
        cells = nbformat.read(nb, as_version=4).cells
        sources.update({f"{nb.relative_to(ROOT)} cell {c.get('id', i)}": c.source
                        for i, c in enumerate(cells) if c.cell_type == "code"})
    assert len(sources) > 20
    long = [f"{where}, line {n}: {len(line)} characters"
            for where, text in sources.items()
            for n, line in enumerate(text.split("\n"), 1) if len(line) > CODE_COLUMN]
    assert not long, f"longer than {CODE_COLUMN} characters:\n" + "\n".join(long)


def test_copy_instructions_show_the_sm75_fallback():
    assert "cp.async.ca.shared.global" not in listing.copy_instructions("async_halo", 75)
    assert listing.copy_instructions("async_halo", 80)["cp.async.ca.shared.global"] >= 1


def test_convolution_widget_offers_only_valid_combinations():
    """Every variant with every N, tile, K, threads and stages the controls offer (stages for
    the staged variants only: the widget passes them to no other), for every generation the
    generation menu offers with it."""
    c = widgets.convolution_controls()
    assert c["versus"].options[0] == ("none", None)
    assert {v for _, v in c["versus"].options[1:]} == set(c["variant"].options)
    ks = range(c["k"].min, c["k"].max + 1)
    for variant in c["variant"].options:
        staged = kernels.variants.get(variant).staged
        for _, stages in c["stages"].options if staged else [("default", None)]:
            for _, threads in c["threads"].options:
                for tile in c["tile"].options:
                    for k in ks:
                        for n in (min(c["n"].options), max(c["n"].options)):
                            kernels.launch_config(n, k, tile, threads, variant, stages)
        c["variant"].value = variant
        for _, arch in c["arch"].options:
            assert arch is None or kernels.variants.get(variant).min_arch <= arch


def test_generations_follow_the_variants(monkeypatch):
    """On a GPU the generation menu offers A100 and T4 builds only when both variants run
    there; in the emulation there is nothing to choose."""
    monkeypatch.setattr(explore, "gpu_available", lambda: True)
    monkeypatch.setattr(explore, "target_arch", lambda: 90)
    monkeypatch.setattr(explore, "compute_capability", lambda: 90)
    assert explore.generation_choices("async_halo", None) == (
        ("sm_90 (this GPU)", None), ("sm_80 (as an A100)", 80), ("sm_75 (as a T4)", 75))
    assert explore.generation_choices("async_halo", "bulk") == (("sm_90 (this GPU)", None),)
    monkeypatch.setattr(explore, "target_arch", lambda: 80)
    assert explore.generation_choices("tiled_sync") == (
        ("sm_80 (as set by ASYNC_BOOK_ARCH)", None), ("sm_75 (as a T4)", 75))
    monkeypatch.setattr(explore, "gpu_available", lambda: False)
    assert explore.generation_choices("async_halo") == (("emulation", None),)
    assert explore.n_choices() == explore.N_CHOICES


def test_a_run_says_when_its_time_is_not_about_bandwidth():
    r = explore.run("async_halo", n=1000, tile=64, k=9)
    assert r.regime() == []   # the emulation: no timing, no cache
    r.median_us, r.copy_us, r.l2_bytes = 1.4, 1.2, 60 * 2**20
    assert [note.split(":")[0] for note in r.regime()] == ["L2-resident", "launch-bound"]
    assert "from N = 2^23 on, x and y outgrow it" in r.regime()[0]   # 8 x 2^23 B = 64 MiB
    r.l2_bytes = 4 * 2**20                                           # a T4's 4 MiB
    assert "from N = 2^20 on" in r.regime()[0]
    r.l2_bytes = 60 * 2**20
    assert "1.17x a copy of the same bytes" in r.summary()
    r.n, r.median_us = 2**26, 140.0
    assert r.regime() == []
    both = explore.compare(["async_halo", "pipelined"], n=1000, tile=64, k=9, stages=2)
    assert [(b.variant, b.stages, b.wrong) for b in both] == [("async_halo", None, 0),
                                                            ("pipelined", 2, 0)]


def test_explore_run_reports_correctness():
    r = explore.run("async_halo", n=1000, tile=64, k=9)
    assert r.wrong == 0 and r.max_error_over_bound <= 1
    bad = explore.run("puzzle28", n=1000, tile=64, k=9)
    assert bad.wrong > 0 and "WRONG" in bad.summary()


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
