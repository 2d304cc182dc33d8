"""Run one or two variants at one size and say what happened: the functions behind notebook 03's
widget, and the sentences notebooks 03 and 04 show under their runs. On a GPU each run is
checked and timed beside a device-to-device copy of the same bytes (:meth:`Run.regime` says
when its time is not about bandwidth); without one the NumPy emulation checks it, untimed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import device, launch, variants as V
from ..device import compute_capability, gpu_available, target_arch
from ..edition import Text, of, power_of_two
from ..geometry import launch_config
from ..measure.bench import time_copy, time_launch
from ..reference import error_bound, random_inputs, reference, wrong_outputs
from ..tables import Table
from ..validate import flag

N_CHOICES = (1, 100, 1000, 16384, 16385, 100_000, 2**20, 2**22)   # the emulation's: seconds at most
N_CHOICES_GPU = N_CHOICES + (2**24, 2**26)   # x and y past any L2 cache: DRAM-bound
TILE_CHOICES = (32, 64, 128, 256, 512, 1024)
K_RANGE = (1, 32)   # every K here fits every tile above, for every variant
# None: the variant's default; at most 512, which every variant takes (warp_specialized adds a
# producer warp to them)
THREAD_CHOICES = (None, 32, 64, 128, 256, 512)
STAGE_CHOICES = (None, 1, 2, 4, 8)   # None: the default; staged variants only (all fit: 48 KiB)
OLDER_GENERATIONS = ((80, "an A100"), (75, "a T4"))
LAUNCH_BOUND_US = 5.0   # under this, a kernel's time is mostly its launch and one memory round trip
MAP_UP_TO = 100_000     # error maps are drawn up to this N (one marker per output)


@dataclass
class Run:
    variant: str
    n: int
    tile: int
    k: int
    backend: str
    y: np.ndarray
    x: np.ndarray
    w: np.ndarray
    wrong: int
    max_error: float             # largest |y - reference|
    max_error_over_bound: float  # the same, in units of the float32 rounding bound
    median_us: float | None      # kernel-only time on the GPU; None in the emulation
    threads: int | None = None   # None: the variant's default
    stages: int | None = None
    arch: int | None = None      # the generation it was built for; None: the book's own here
    copy_us: float | None = None   # a device copy of the same 8 N bytes, same run
    l2_bytes: int | None = None

    def summary(self) -> Text:
        """Three short lines (the page's column holds about 80 characters): what ran, whether it
        is correct, its largest error and, on a GPU, its time; in both editions' languages."""
        verdict = Text("correct", "올바름") if self.wrong == 0 else Text(
            f"{self.wrong} of {self.n} outputs WRONG", f"출력 {self.n:,}개 가운데 {self.wrong:,}개 틀림")
        time = Text("no timing in the emulation", "에뮬레이션에서는 시간을 재지 않습니다")
        if self.median_us is not None:
            gbs = f"{8 * self.n / self.median_us / 1e3:.0f} GB/s"
            ratio = f"{self.median_us / self.copy_us:.2f}" if self.copy_us else ""
            copy = ((f", {ratio}x a copy of the same bytes", f", 같은 바이트 복사의 {ratio}배")
                    if ratio else ("", ""))
            time = Text(f"{self.median_us:.1f} µs kernel time ({gbs}{copy[0]})",
                        f"커널 시간 {self.median_us:.1f} µs({gbs}{copy[1]})")
        given = [(f", {en}", f", {ko}") for en, ko, value in
                 ((f"threads={self.threads}", f"스레드 {self.threads}개", self.threads),
                  (f"stages={self.stages}", f"스테이지 {self.stages}개", self.stages),
                  (f"arch={self.arch}", f"sm_{self.arch}용 빌드", self.arch)) if value is not None]
        head = f"{self.variant}, N={self.n}, tile={self.tile}, K={self.k}" + "".join(
            en for en, _ in given)
        head_ko = f"{self.variant}, N = {self.n:,}, 타일 크기 {self.tile}, K = {self.k}" + "".join(
            ko for _, ko in given)
        backend = Text(self.backend, "에뮬레이션" if self.backend == "emulation" else self.backend)
        bound = f"{self.max_error_over_bound:.2g}"
        return Text(f"{head} [{backend.en}]: {verdict.en}\n"
                    f"  largest error {self.max_error:.2e} ({bound} × the rounding bound)\n"
                    f"  {time.en}",
                    f"{head_ko} [{backend.ko}]: {verdict.ko}\n"
                    f"  최대 오차 {self.max_error:.2e}(허용 오차의 {bound}배)\n"
                    f"  {time.ko}")

    def regime(self) -> list[Text]:
        """Why this run's GB/s are not DRAM bandwidth, if they are not: one sentence each, in both
        editions' languages."""
        notes = []
        if self.l2_bytes and 8 * self.n <= self.l2_bytes:
            past = power_of_two(next(2**p for p in range(1, 40) if 8 * 2**p > self.l2_bytes))
            mib, l2 = f"{8 * self.n / 2**20:.2g} MiB", f"{self.l2_bytes / 2**20:.0f} MiB"
            notes.append(Text(f"L2-resident — x and y ({mib}) fit in the {l2} L2 cache, so these "
                              f"GB/s are not DRAM's (from N = {past} on, x and y outgrow it)",
                              f"L2 상주 — x와 y({mib})가 {l2} L2 캐시에 들어가므로, 이 GB/s는 "
                              f"DRAM의 대역폭이 아닙니다(N = {past}부터는 x와 y가 캐시보다 큽니다)"))
        if self.median_us is not None and self.median_us < LAUNCH_BOUND_US:
            notes.append(Text(f"launch-bound — under {LAUNCH_BOUND_US:.0f} µs a kernel's time is "
                              "mostly its launch and one memory round trip, whatever it moves",
                              f"런치 바운드 — {LAUNCH_BOUND_US:.0f} µs 미만에서는 무엇을 옮기든 커널 "
                              "시간의 대부분이 런치와 메모리 왕복 한 번입니다"))
        return notes


def wrong_sentence(variant: str, y, x, w, tile: int | None = None) -> Text:
    """How many of ``variant``'s outputs ``y`` are wrong (:func:`kernels.wrong_outputs`) and, with
    ``tile``, at which positions of a tile: the line notebook 03 shows under each run."""
    wrong = wrong_outputs(y, x, w)
    n = np.asarray(x).size
    en = f"{variant}: {wrong.size:,} of {n:,} outputs wrong"
    ko = f"{variant}: 출력 {n:,}개 가운데 {wrong.size:,}개 틀림"
    if tile is not None:
        positions = sorted(set(int(t) for t in wrong % tile))
        en += f", at positions {positions} of every tile"
        ko += f", 모든 타일에서 위치 {', '.join(str(t) for t in positions)}"
    return Text(en, ko)


def runnable_lines(window, left_out) -> Text:
    """The variants this GPU runs, then a line for each it does not (and why): what notebook 04
    shows before its correctness run."""
    names = ", ".join(window)
    return Text("\n".join(["run here:", names, *(of(x, "en") for x in left_out)]),
                "\n".join(["여기서 실행하는 변형:", names, *(of(x, "ko") for x in left_out)]))


def wrong_summary(wrong: dict, n: int) -> Text:
    """The most wrong outputs of any variant run (``wrong``: variant -> count) out of ``n``: the
    line notebook 04 shows under its correctness run."""
    most = max(int(v) for v in wrong.values())
    return Text(f"wrong outputs, each variant run: {most:,} of {n:,}",
                f"틀린 출력(변형마다 실행): {n:,}개 가운데 {most:,}개")


def largest_error(y, x, w) -> Text:
    """``y``'s largest distance from the float64 reference, as notebook 03 shows it."""
    e = f"{np.abs(np.asarray(y) - reference(x, w)).max():.2e}"
    return Text(f"largest error {e}", f"최대 오차 {e}")


def variant_choices() -> tuple[str, ...]:
    """The variants this machine can run (the emulation runs all)."""
    return V.names(arch=target_arch() if gpu_available() else None)


def n_choices() -> tuple[int, ...]:
    """Sizes to offer: up to DRAM-bound sizes on a GPU, up to 2^22 in the emulation."""
    return N_CHOICES_GPU if gpu_available() else N_CHOICES


def generation_choices(*variants: str | None) -> tuple[tuple[str, int | None], ...]:
    """(label, arch) of the generations the book can build ``variants`` for here: its own
    (``None``), and on a GPU the older ones (A100, T4) that every variant named runs on."""
    if not gpu_available():
        return ((str(Text("emulation", "에뮬레이션")), None),)
    top = target_arch()
    own = (Text("this GPU", "이 GPU") if top == compute_capability()
           else Text("as set by ASYNC_BOOK_ARCH", "ASYNC_BOOK_ARCH로 지정"))
    choices = [(str(Text(f"sm_{top} ({own.en})", f"sm_{top}({own.ko})")), None)]
    for arch, gpu in OLDER_GENERATIONS:
        if arch < top and all(V.get(v).min_arch <= arch for v in variants if v):
            choices.append((str(Text(f"sm_{arch} (as {gpu})",
                                     f"sm_{arch}({gpu.split()[-1]}용)")), arch))
    return tuple(choices)


def run(variant: str = "async_halo", n: int = 16384, tile: int = 256, k: int = 5, seed: int = 28,
        timed: bool = True, threads: int | None = None, stages: int | None = None,
        arch: int | None = None) -> Run:
    """Run ``variant`` on ``random_inputs(n, k, seed)`` (the other arguments as
    :func:`kernels.conv1d` takes them), check it and, on a GPU when ``timed``, time it beside a
    copy of the same bytes."""
    cfg = launch_config(n, k, tile, threads, variant, stages)   # laid out once, here
    timed = flag("timed", timed)
    x, w = random_inputs(n, k, seed)             # and the seed
    y = launch.run(cfg, x, w, arch=arch)
    err = np.abs(y.astype(np.float64) - reference(x, w))
    median = copy = l2 = None
    if gpu_available() and timed:   # the benchmark's own timing, copy beside kernel
        import cupy
        xd, wd = cupy.asarray(x), cupy.asarray(w)
        yd = cupy.empty_like(xd)
        copy = time_copy(xd, yd, k).median_us
        median = time_launch(launch.prepare_config(cfg, xd, wd, yd, arch=arch), copy,
                             check=None).median_us
        l2 = device.device_info().get("l2_bytes")
    return Run(variant, n, tile, k, "GPU" if gpu_available() else "emulation", y, x, w,
               int(wrong_outputs(y, x, w).size), float(np.nanmax(err)),
               float(np.nanmax(err / error_bound(x, w))), median, threads, stages, arch, copy, l2)


def compare(variants, n: int = 16384, tile: int = 256, k: int = 5, threads: int | None = None,
            stages: int | None = None, arch: int | None = None, seed: int = 28) -> list[Run]:
    """:func:`run` each of ``variants`` on the same inputs; ``stages`` goes to the staged
    variants only."""
    return [run(v, n, tile, k, seed, threads=threads, arch=arch,
                stages=stages if V.get(v).staged else None) for v in variants]


@dataclass
class OlderBuild:
    """One variant built natively and for an older generation (``arch``), both timed on this GPU:
    notebook 03's "T4 code path" cell. ``runs`` is empty without a GPU."""
    variant: str
    arch: int
    runs: list            # [native Run, older-build Run], or [] in the emulation
    device: str | None = None
    compute_capability: int | None = None

    def table(self):
        native = Text("native", "네이티브")
        rows = [[native if r.arch is None else f"compute_{r.arch}", f"{r.median_us:.1f}",
                 f"{8 * r.n / r.median_us / 1e3:.0f}", f"{r.median_us / r.copy_us:.2f}", r.wrong,
                 f"{r.max_error_over_bound:.2g}"] for r in self.runs]
        r = self.runs[0]
        size = f"N = {power_of_two(r.n)}"
        return Table(Text(f"{self.variant}, {size}, tile {r.tile}, K = {r.k}: each "
                          "build beside a copy of the same bytes",
                          f"{self.variant}, {size}, 타일 크기 {r.tile}, K = {r.k}: 빌드마다 같은 바이트의 "
                          "복사와 나란히"),
                     [Text("build", "빌드"), Text("kernel µs", "커널 µs"), "GB/s",
                      Text("÷ copy", "÷ 복사"), Text("wrong", "틀린 출력"),
                      Text("largest error / bound", "최대 오차 / 허용 오차")], rows)

    def sentence(self) -> Text:
        """What the two lines say on this machine (a sentence for the page)."""
        native, older = (r.median_us for r in self.runs) if self.runs else (None, None)
        return older_build_sentence(native, older, self.arch, self.compute_capability, self.device)


def older_build_sentence(native_us: float | None, older_us: float | None, arch: int,
                         cc: int | None = None, device: str | None = None) -> Text:
    """The sentence notebook 03 shows under its T4-code-path table: the older build's time against
    the native one's, true on any GPU (on one of generation ``arch`` both builds are the same
    code), or, without a GPU (``native_us`` None), that nothing was timed."""
    if native_us is None or older_us is None:
        return Text(f"No GPU here: the compute_{arch} build compiles (the table above) but timing it "
                    "needs a GPU, and this chapter keeps no recording of it.",
                    f"여기에는 GPU가 없습니다. compute_{arch} 빌드는 컴파일되지만(위의 표), 시간을 "
                    "재려면 GPU가 필요하고 이 장에는 그 기록이 없습니다.")
    ratio = older_us / native_us
    gpu = (device or "GPU") + (f" (sm_{cc})" if cc else "")
    where = Text(f"On this {gpu}", f"이 {gpu.replace(' (', '(')}에서는")
    if cc is not None and cc <= arch:
        return Text(f"{where.en} both lines run the same compute_{arch} code, so their gap "
                    f"({ratio:.2f}x) is noise, not the cost of synchronous copies.",
                    f"{where.ko} 두 줄 모두 같은 compute_{arch} 코드를 실행하므로, 그 차이"
                    f"({ratio:.2f}배)는 동기식 복사의 비용이 아니라 잡음입니다.")
    said = Text(f"{where.en} the compute_{arch} build took {older_us:.1f} µs against the native "
                f"build's {native_us:.1f} µs, {ratio:.2f}x",
                f"{where.ko} compute_{arch} 빌드가 {older_us:.1f} µs로, 네이티브 빌드 "
                f"{native_us:.1f} µs의 {ratio:.2f}배가 걸렸습니다")
    if ratio > 1.05:
        more = f"{100 * (ratio - 1):.0f}%"
        return said + Text(f": the compute_{arch} code path costs this kernel {more} more time "
                           "here.",
                           f". 여기서 compute_{arch} 코드 경로는 이 커널의 시간을 {more} 늘립니다.")
    if ratio >= 0.95:
        return said + Text(": within 5%, so here the warps the SM switches between hide what the "
                           "synchronous copies cost.",
                           ". 차이가 5% 이내이므로, 여기서는 SM이 번갈아 실행하는 워프들이 동기식 "
                           "복사의 비용을 감춥니다.")
    return said + Text(": the older build is faster here, so the asynchronous copy buys this kernel "
                       "nothing on this GPU.",
                       ". 여기서는 이전 세대용 빌드가 더 빠르므로, 이 GPU에서 비동기 복사는 이 커널에 "
                       "아무 이득도 주지 않습니다.")


def older_build(variant: str = "async_halo", arch: int = 75, n: int = 2**24, tile: int = 256,
                k: int = 5) -> OlderBuild:
    """Run and time ``variant`` built natively and as ``compute_{arch}`` (on a GPU; both must be
    correct), or, without a GPU, an :class:`OlderBuild` with no runs."""
    if not gpu_available():
        return OlderBuild(variant, arch, [])
    runs = [run(variant, n=n, tile=tile, k=k, arch=a) for a in (None, arch)]
    for r in runs:
        if r.wrong:
            raise AssertionError(f"{variant} built for {r.arch or 'this GPU'}: {r.wrong} outputs wrong")
    return OlderBuild(variant, arch, runs, device.device_info().get("device"), compute_capability())
