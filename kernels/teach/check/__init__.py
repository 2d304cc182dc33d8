"""The exercises' check: what a learner's kernel gets when its cell runs ``report``.

In order, stopping at the first problem (a :class:`~.exercises.NotYet`, with the line and the
fix): the text (:mod:`.source`), the NVRTC build (:mod:`.build`), the PTX (:mod:`.ptx`) and, on a
GPU that can run the exercise, the GPU run (:mod:`.run`), the judge: only it passes an answer.
The README's "Exercises" says what each step refuses.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ...device import gpu_available, target_arch
from ...edition import Text
from ...launch import gpu_target
from . import ptx, run, source
from .build import LearnerBuild, compile_ptx
from .exercises import EXERCISES, NotYet, get, skeleton, solution

__all__ = ["EXERCISES", "report", "skeleton", "solution"]


def _static(src, ex):
    src = source.read(src)
    source.check(src, ex)
    first = ex.cases[0]
    build = LearnerBuild(first.tile, first.k, first.threads, f"sm_{ex.arch}", first.stages,
                         jitter=True, lines=True)   # the stress build: what the GPU runs
    ptx.check(compile_ptx(src, ex, build), ex)
    return src


def _verdict(src, name: str) -> Text:
    try:
        ex = get(name)
    except (TypeError, ValueError) as exc:
        return Text(f"NOT CHECKED: {exc}", f"검사 못 함: {exc}")
    src = _static(src, ex)
    arch = target_arch() if gpu_available() else 0
    if arch < max(ex.run_arch, 75):
        where = Text("an H100 (sm_90)", "H100(sm_90) 런타임") if ex.run_arch else Text(
            "a GPU (an A100 or newer copies asynchronously)", "GPU 런타임(비동기 복사로 실행하려면 A100 이상)")
        here = Text(f"this GPU (sm_{arch}) cannot run it", f"이 GPU(sm_{arch})에서는 실행할 수 없습니다") \
            if arch else Text("there is no GPU here", "여기에는 GPU가 없습니다")
        return _not_run(here, where, ex)
    with tempfile.TemporaryDirectory(prefix=f"{ex.key}-check-") as tmp:
        said = run.run(src, ex, gpu_target("async_halo"), arch, Path(tmp))
    if said["no_build"]:   # it builds for the exercise's GPU, not for this older one
        return _not_run(Text(f"this GPU (sm_{arch}) cannot build it: it uses instructions that "
                         f"need sm_{ex.arch}", f"이 GPU(sm_{arch})용으로는 빌드되지 않습니다. "
                         f"sm_{ex.arch}이 필요한 명령어를 씁니다"),
                        Text("an A100 (sm_80) or an H100 (sm_90)", "A100(sm_80)이나 H100(sm_90)"), ex)
    tried = (f"{said['configurations']} configurations, {said['launches']['stress']} launches "
             "of the stress build")
    tried_ko = (f"구성 {said['configurations']}가지, 스트레스 빌드 "
                f"{said['launches']['stress']}회 실행")
    if said["host"]:
        return Text(f"PASSED: right outputs on the GPU (sm_{arch}) in {tried}, and "
                    f"{said['launches']['host']} with its input in host memory, where each copy "
                    "takes microseconds to land.",
                    f"통과: GPU(sm_{arch})에서 {tried_ko}, 입력을 호스트 메모리에 둔 "
                    f"{said['launches']['host']}회 실행 모두 출력이 맞았습니다. 호스트 메모리에서는 "
                    "복사 하나가 도착하는 데 수 µs가 걸립니다.")
    if arch < ex.arch:
        return Text(f"PASSED on sm_{arch}: right outputs in {tried}. Here the copies are "
                    "synchronous, so a wait in the wrong place cannot show: on an A100 (sm_80) "
                    "or newer the check also runs it with its copies in flight.",
                    f"sm_{arch}에서 통과: {tried_ko} 모두 출력이 맞았습니다. 여기서는 복사가 "
                    "동기식이라 대기가 잘못된 자리에 있어도 드러나지 않습니다. A100(sm_80) 이상에서는 "
                    "검사가 복사를 진행 중인 채로 두고도 실행해 봅니다.")
    return Text(f"PASSED: right outputs on the GPU (sm_{arch}) in {tried}.",
                f"통과: GPU(sm_{arch})에서 {tried_ko} 모두 출력이 맞았습니다.")


def _not_run(here: Text, where: Text, ex) -> Text:
    what, run = ptx.COVERS[ex.key]
    return Text(f"COMPILES, NOT RUN: the static checks ({what.en}) find nothing missing; "
                f"{run.en}, only a run can tell, and {here.en}. Open this notebook "
                f"in Colab on {where.en} to finish the check.",
                f"컴파일됨, 실행 안 함: 정적 검사({what.ko})에서는 빠진 것을 찾지 못했습니다. "
                f"{run.ko}는 실행해야만 알 수 있는데, {here.ko}. 이 노트북을 Colab의 {where.ko}에서 열어 검사를 "
                "마치세요.")


def report(src, name: str = "async_halo") -> Text:
    """The verdict on a learner's kernel ``src`` for exercise ``name``, one paragraph in both
    languages: ``PASSED``, ``COMPILES, NOT RUN``, ``NOT YET`` (what, where, the fix) or
    ``NOT CHECKED`` (the check's own fault). Never raises; at most 30 s for the build and
    90 s for the GPU run."""
    try:
        return _verdict(src, name)
    except NotYet as exc:
        return Text(f"NOT YET: {exc.text.en}", f"아직 통과 못 함: {exc.text.ko}")
    except Exception as exc:   # a fault of the check's, not of the answer's
        what = f"{type(exc).__name__}: {str(exc)[:200]}"
        return Text(f"NOT CHECKED: the check itself failed ({what}). Please report it.",
                    f"검사 못 함: 검사 자체가 실패했습니다({what}). 이 문제를 알려 주세요.")
