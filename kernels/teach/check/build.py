"""Compiling an answer with NVRTC, in a child process that is killed after a time limit
(NVRTC cannot be stopped in-process), started in a folder that holds only the common header,
which with libcu++ is all the answer can include. Builds are cached on disk by source and
options. ``python -m kernels.teach.check.build JOB`` is the child."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ... import compile as C
from ...edition import Text, of
from .exercises import Exercise, NotYet
from .source import HEADER, shown

COMPILE_LIMIT_S = 30
CACHE = C.CACHE_DIR / "exercise"


@dataclass(frozen=True)
class LearnerBuild(C.Build):
    """A build whose include path is :func:`private_include` and libcu++, nothing else: the
    solutions are out of reach. ``lines`` adds the source lines to the PTX (``.loc``)."""

    lines: bool = False

    def options(self) -> list[str]:
        libcudacxx = [d for d in C.include_dirs() if Path(d) != C.KERNEL_DIR]
        return ([o for o in super().options() if not o.startswith("-I")]
                + [f"-I{d}" for d in (private_include(), *libcudacxx)]
                + (["--generate-line-info"] if self.lines else []))


def private_include() -> Path:
    """A folder that holds the common header as it is now, alone, named by its hash: two
    checkouts (or a header edited mid-run) never compile against each other's."""
    header = (C.KERNEL_DIR / HEADER).read_bytes()
    folder = CACHE / "include" / hashlib.sha256(header).hexdigest()[:16]
    target = folder / HEADER
    if not target.exists():
        folder.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f"{HEADER}.{os.getpid()}.tmp")
        tmp.write_bytes(header)
        tmp.replace(target)
    return folder


def run_child(args: list[str], limit: float) -> subprocess.CompletedProcess | None:
    """``python -m`` ``args`` in :func:`private_include`, in a session of its own; None if it
    ran past ``limit`` seconds (then it and its children are killed)."""
    path = os.pathsep.join(p for p in (str(C.KERNEL_DIR.parent), os.environ.get("PYTHONPATH")) if p)
    process = subprocess.Popen([sys.executable, "-m", *args], cwd=private_include(),
                               env={**os.environ, "PYTHONPATH": path}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = process.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        return None
    finally:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    return subprocess.CompletedProcess(args, process.returncode, out.decode("utf-8", "replace"),
                                       err.decode("utf-8", "replace"))


def cached(src: str, kernel: str, build: LearnerBuild) -> Path:
    """Where this build's PTX, CUBIN and log (``.json``) go: the book's cache key, in the
    check's own folder."""
    return CACHE / C.cache_path(src, kernel, build).stem


def compile_ptx(src: str, ex: Exercise, build: LearnerBuild) -> str:
    """The PTX of ``build`` (machine code is made too, so that ptxas reads the inline asm);
    :class:`NotYet` for a compile error (the learner's line and the first error) or a compile
    that takes longer than :data:`COMPILE_LIMIT_S`."""
    out = cached(src, ex.kernel, build)
    if not out.with_suffix(".json").exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        job = out.with_name(f"{out.name}.{os.getpid()}.job")
        job.write_text(json.dumps({"source": src, "kernel": ex.kernel,
                                   "options": build.options(), "out": str(out)}))
        try:
            done = run_child(["kernels.teach.check.build", str(job)], COMPILE_LIMIT_S)
        finally:
            job.unlink(missing_ok=True)
        if done is None:
            raise NotYet(f"it did not compile within {COMPILE_LIMIT_S} s. A loop unrolled too "
                         "far (#pragma unroll) or templates nested too deep?",
                         f"{COMPILE_LIMIT_S}초 안에 컴파일되지 않았습니다. 루프를 너무 많이 "
                         "펼치거나(#pragma unroll) 템플릿을 너무 깊게 중첩하지 않았나요?")
        if not out.with_suffix(".json").exists():
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"the compiler's process failed (exit {done.returncode}): {last}")
    log = json.loads(out.with_suffix(".json").read_text())["log"]
    if log is not None:
        line, code, what = first_error(log, src, ex.kernel)
        if what.startswith("cannot open source file"):
            raise NotYet(f"line {line}: no such header here:{shown(code)}The check compiles with "
                         "NVRTC, which has CUDA's device headers but none of the host's, such "
                         "as <stdio.h> (printf in device code needs none). Remove that line.",
                         f"{line}번째 줄의 헤더는 여기에 없습니다:{shown(code)}검사는 NVRTC로 "
                         "컴파일하는데, NVRTC에는 CUDA 디바이스 헤더만 있고 <stdio.h> 같은 호스트 "
                         "헤더는 없습니다(디바이스 코드의 printf에는 헤더가 필요 없습니다). 그 줄을 "
                         "지우세요.")
        fix = Text("Fix that line.", "그 줄을 고치세요.")
        before = src.split("\n")[:line - 1] if isinstance(line, int) else []
        coded = [i for i, text in enumerate(before, 1)     # lines of code, not comments
                 if text.strip() and not text.strip().startswith("//")]
        if 'expected a ";"' in what and coded:
            fix = Text(f"NVRTC reports a missing ; on the next line: check the end of line "
                       f"{coded[-1]} too.", f"NVRTC는 빠진 세미콜론(;)을 다음 줄에서 알려 주므로 "
                       f"{coded[-1]}번째 줄 끝도 확인하세요.")
        if line == "?" and 'expected a "}"' in what:   # no line: the source ended inside a {
            raise NotYet("it does not compile: the source ends inside a { that is never closed. "
                         "Check that every { you added has its }.",
                         "컴파일되지 않습니다: 닫히지 않은 { 안에서 소스가 끝납니다. 추가한 {마다 "
                         "짝이 되는 }가 있는지 확인하세요.")
        named = ([n for n in re.findall(r'"([^"]+)"', what) if n in code] or [""])[-1]
        raise NotYet(f"it does not compile, line {line}: {what}.{shown(code, named)}"
                     f"{of(fix, 'en')}",
                     f"컴파일되지 않습니다. {line}번째 줄: {what}.{shown(code, named)}"
                     f"{of(fix, 'ko')}")
    return out.with_suffix(".ptx").read_text()


ERROR = re.compile(r"(?P<file>.+?)\((?P<line>\d+)\): (?:catastrophic )?error[^:]*: (?P<what>.*)")


def first_error(log: str, src: str, kernel: str) -> tuple[int | str, str, str]:
    """NVRTC's first error as (the learner's line, its code, the message); an error inside a
    header is placed where the answer instantiated it."""
    lines = [line[:600] for line in log[:600_000].splitlines()]   # a static_assert may say a lot
    for i, text in enumerate(lines):
        if m := ERROR.match(text):
            what = re.sub(r"\S*/libcudacxx/(\S+?)", r"<\1>", m["what"].strip())
            what = re.sub(r"__\d+::", "", what)[:300]    # cuda::__4::pipeline -> cuda::pipeline
            number = int(m["line"]) if m["file"].endswith(f"{kernel}.cu") else next(
                (int(at[1]) for at in (re.search(rf"at line (\d+) of \S*{kernel}\.cu", t)
                                       for t in lines[i + 1:i + 20]) if at), "?")
            return number, code_at(src, number), what
    return "?", "", (next((t.strip() for t in lines if t.strip()), "no message"))[:300]


def code_at(src: str, number) -> str:
    lines = src.split("\n")
    return lines[number - 1] if isinstance(number, int) and 0 < number <= len(lines) else ""


def main(job_file: str) -> None:
    """The child: compile one job, leave its PTX, CUBIN and log (``.json``, written last)."""
    nvrtc = C._nvrtc()
    job = json.loads(Path(job_file).read_text())
    out = Path(job["out"])
    prog = nvrtc.createProgram(job["source"], f"{job['kernel']}.cu", [], [])
    log, made = None, {}
    try:
        nvrtc.compileProgram(prog, job["options"])
        made = {".ptx": nvrtc.getPTX(prog)}
        if any(o.startswith("--gpu-architecture=sm_") for o in job["options"]):
            made[".cubin"] = nvrtc.getCUBIN(prog)
    except nvrtc.NVRTCError:
        log = nvrtc.getProgramLog(prog)
        log = log.decode("utf-8", "replace") if isinstance(log, bytes) else log
    finally:
        nvrtc.destroyProgram(prog)
    for suffix, data in [*made.items(), (".json", json.dumps({"log": log}))]:
        data = data if isinstance(data, bytes) else data.encode()
        tmp = out.with_name(f"{out.name}{suffix}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        tmp.replace(out.with_suffix(suffix))


if __name__ == "__main__":
    main(sys.argv[1])
