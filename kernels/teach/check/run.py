"""The GPU run, the judge: the answer built for this GPU and launched at every configuration
of its exercise, outputs and shared memory poisoned with NaN, then under the stress build, and
where the copies are asynchronous with its input in host memory. It runs in a child process
(``python -m kernels.teach.check.run FOLDER``) killed after :data:`RUN_LIMIT_S`, so that a kernel
that never ends does not stop the notebook."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from ...reference import error_bound, random_inputs, reference
from .build import LearnerBuild, cached, main as compile_job, run_child
from .exercises import HOST, STRESS, Exercise, NotYet

RUN_LIMIT_S = 90   # CuPy's start, a dozen compiles, ~25 launches and their checks


def run(src: str, ex: Exercise, target: str, arch: int, folder: Path) -> dict:
    """Run the answer on this GPU as ``target``; what ran, or :class:`NotYet`."""
    launches = [(case, 1, False, False) for case in ex.cases] + [(ex.stress, STRESS, True, False)]
    if ex.host and arch >= ex.arch:   # older GPUs copy synchronously: nothing to catch there
        launches.append((ex.host, HOST, True, True))
    jobs = []
    for case, times, stress, host in launches:
        # every build is a stress build: the kernel that runs is the one the stress run shakes
        build = LearnerBuild(case.tile, case.k, case.threads, target, case.stages, jitter=True)
        jobs.append(dict(case._asdict(), blocks=case.grid(), launches=times, stress=stress,
                         host=host, out=str(cached(src, ex.kernel, build)), kernel=ex.kernel,
                         options=build.options(), cubin=build.machine_code,
                         block_threads=case.threads + (32 if ex.producer_warp else 0)))
    (folder / "jobs.json").write_text(json.dumps({"source": src, "jobs": jobs,
                                                  "hint": [ex.hint.en, ex.hint.ko]}))
    done = run_child(["kernels.teach.check.run", str(folder)], RUN_LIMIT_S)
    if done is None:
        raise NotYet(f"it did not finish within {RUN_LIMIT_S} s on the GPU: a wait whose phase "
                     "never completes (a parity no one completes, arrivals short of the "
                     "barrier's count, bytes expected that never land), or a loop that never "
                     "ends.",
                     f"GPU에서 {RUN_LIMIT_S}초 안에 끝나지 않았습니다. 원인은 페이즈가 끝내 "
                     "완료되지 않는 대기나 끝나지 않는 루프입니다. 아무도 완료하지 않는 패리티를 "
                     "기다리거나, 도착이 배리어를 초기화한 수보다 적거나, 기다리는 바이트가 도착하지 "
                     "않으면 페이즈가 완료되지 않습니다.")
    try:
        said = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        last = (done.stderr.strip().splitlines() or [""])[-1][:300]
        raise NotYet(f"it crashed on the GPU: {last or 'no output'}. Look for an index outside "
                     "x_s or x.",
                     f"커널이 GPU에서 비정상 종료했습니다({last or '출력 없음'}). x_s나 x의 범위 "
                     "밖을 가리키는 인덱스가 있는지 찾아보세요.") from None
    if said["wrong"]:
        raise NotYet(*said["wrong"])
    if said["no_build"] and arch >= ex.arch:
        raise NotYet(f"it does not compile for this GPU at {said['no_build']}: make it compile "
                     "for every size.",
                     f"이 GPU용으로는 {said['no_build']}에서 컴파일되지 않습니다. 어느 크기에서나 "
                     "컴파일되게 고치세요.")
    return said


def where(i: int, n: int, tile: int, k: int) -> tuple[str, str]:
    """Output ``i``'s place: a vector end, a tile boundary or inside a tile."""
    t, halo = i % tile, k // 2
    if i < halo or i >= n - (k - 1 - halo):
        return ("at an end of the vector (its halo there must hold zeros)",
                "벡터의 한쪽 끝에 있습니다(그쪽 헤일로 셀에는 0이 들어 있어야 합니다)")
    if t < halo or t >= tile - (k - 1 - halo):
        return (f"at a tile boundary (i mod tile = {t}: it reads the neighbouring tile's cells)",
                f"타일 경계에 있습니다(타일 안 위치 {t}: 이웃 타일의 셀을 읽습니다)")
    return f"inside a tile (i mod tile = {t})", f"타일 안에 있습니다(타일 안 위치 {t})"


def wrong(y: np.ndarray, expected: np.ndarray, bound: np.ndarray, job: dict,
          launch: int, hint: tuple[str, str]) -> tuple[str, str] | None:
    """What is wrong with one launch's outputs (en, ko), or None (a NaN is never close)."""
    with np.errstate(invalid="ignore"):
        bad = np.flatnonzero(~(np.abs(y.astype(np.float64) - expected) <= bound))
    if not bad.size:
        return None
    n, tile, k, i = job["n"], job["tile"], job["k"], int(bad[0])
    got = (("NaN (never written, or computed from a cell no one wrote)",
            "값이 NaN입니다(아무도 저장하지 않았거나, 아무도 저장하지 않은 셀을 읽어 계산했습니다)") if np.isnan(y[i]) else
           (f"{y[i]:.6g} where {expected[i]:.6g} is right",
            f"값이 {y[i]:.6g}인데, 맞는 값은 {expected[i]:.6g}입니다"))
    place = where(i, n, tile, k)
    stages = ((f", {job['stages']} stages", f", 스테이지 {job['stages']}개") if job["stages"]
              else ("", ""))
    sizes = (f"n={n}, tile={tile}, K={k}, {job['threads']} threads{stages[0]}, {job['blocks']} blocks",
             f"N = {n:,}, 타일 크기 {tile}, K = {k}, 스레드 {job['threads']}개{stages[1]}, 블록 {job['blocks']:,}개")
    how = (("with its input in host memory", "입력을 호스트 메모리에 둔 실행에서") if job["host"] else
           ("under the stress build", "스트레스 빌드에서") if job["stress"] else ("", ""))
    run = (f"launch {launch + 1} of {job['launches']} {how[0]}, " if how[0] else "")
    en = (f"{bad.size} wrong outputs ({run}{sizes[0]}); the first, y[{i}], is {got[0]}, {place[0]}."
          + (f" {hint[0]}" if job["stress"] else ""))
    ko = (f"{how[1] + ' ' if how[1] else ''}틀린 출력이 {bad.size}개입니다({sizes[1]}"
          f"{', 실행 ' + str(launch + 1) + '/' + str(job['launches']) if how[1] else ''}). "
          f"첫 번째는 y[{i}]입니다. {got[1]}. 이 출력은 {place[1]}."
          + (f" {hint[1]}" if job["stress"] else ""))
    return en, ko


# Leaves NaN in nearly all of every SM's shared memory before each launch, so that a cell the
# kernel forgets to write holds NaN, not what happened to be there.
POISON = r"""
extern "C" __global__ void poison_shared(int words)
{
    extern __shared__ unsigned int s[];
    volatile unsigned int* v = s;
    for (int i = threadIdx.x; i < words; i += blockDim.x) v[i] = 0x7fc00000u;   // NaN
}
"""


def main(folder: str) -> None:
    """The child: compile each job (through the cache), launch it, print one line of JSON."""
    import cupy
    spec = json.loads((Path(folder) / "jobs.json").read_text())
    device = cupy.cuda.Device()
    limit = device.attributes["MaxSharedMemoryPerBlockOptin"]
    poison_kernel = cupy.RawKernel(POISON, "poison_shared")
    poison_kernel.max_dynamic_shared_size_bytes = limit
    sms = device.attributes["MultiProcessorCount"]
    said = {"wrong": None, "no_build": None, "configurations": 0, "stress": 0, "host": 0}
    for job in spec["jobs"]:
        out = Path(job["out"])
        if not out.with_suffix(".json").exists():
            job_file = Path(folder) / "job.json"
            job_file.write_text(json.dumps({"source": spec["source"], "kernel": job["kernel"],
                                            "options": job["options"], "out": job["out"]}))
            compile_job(str(job_file))
        built = json.loads(out.with_suffix(".json").read_text())["log"] is None
        if built:
            binary = out.with_suffix(".cubin" if job["cubin"] else ".ptx")
            try:   # PTX built for an older GPU is checked only here, when the driver loads it
                kernel = cupy.RawModule(path=str(binary)).get_function(job["kernel"])
            except cupy.cuda.driver.CUDADriverError:
                built = False
        if not built:
            said["no_build"] = f"tile={job['tile']}, K={job['k']}"
            break
        x, w = random_inputs(job["n"], job["k"])
        expected, bound = reference(x, w), error_bound(x, w)
        if job["host"]:   # pinned host memory, which a kernel reads over the host link
            pinned = cupy.cuda.alloc_pinned_memory(x.nbytes)
            np.frombuffer(pinned, x.dtype, x.size)[:] = x
            memory = cupy.cuda.UnownedMemory(pinned.ptr, x.nbytes, pinned, device.id)
            xd = cupy.ndarray(x.shape, x.dtype, cupy.cuda.MemoryPointer(memory, 0))
        else:
            xd = cupy.asarray(x)
        wd, y = cupy.asarray(w), cupy.empty(job["n"], cupy.float32)
        for launch in range(job["launches"]):
            y.fill(cupy.nan)
            poison_kernel((sms,), (1024,), (np.int32(limit // 4),), shared_mem=limit)
            kernel((job["blocks"],), (job["block_threads"],), (xd, wd, y, np.int32(job["n"])))
            said["wrong"] = wrong(y.get(), expected, bound, job, launch, spec["hint"])
            if said["wrong"]:
                break
        if said["wrong"]:
            break
        said["host" if job["host"] else "stress" if job["stress"] else "configurations"] += 1
    said["launches"] = {"stress": STRESS, "host": HOST}
    print(json.dumps(said), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
