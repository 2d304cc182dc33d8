"""What the PTX shows of an answer, read in one pass in the order the PTX lists it: the
kernel's instructions (the ``.func`` it calls put in place of each call), each with the answer's
line it comes from. The rules here refuse only what is wrong on every input; whether the waits
wait for the right copies, and the barriers for the right threads, only the GPU run judges."""

from __future__ import annotations

import re
from typing import NamedTuple

from ...edition import Text
from .exercises import Exercise, NotYet

FUNCTION = re.compile(r"^\s*(?:\.\w+\s+)*\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)")
LOC = re.compile(r"\.loc\s+(\d+)\s+(\d+)\s+\d+(?:.*?inlined_at\s+(\d+)\s+(\d+))?")
FILE = re.compile(r'\.file\s+(\d+)\s+"([^"]*)"')
CALL = re.compile(r"call(?:\.uni)?\s+(?:\([^)]*\)\s*,\s*)?([\w$]+)")

COPY = re.compile(r"cp\.async\.c[ag]\.shared")                 # cuda::memcpy_async, sm_80
BULK = re.compile(r"cp\.async\.bulk\.shared")                  # the bulk copy, sm_90
COMMIT = re.compile(r"cp\.async\.(?:commit_group|mbarrier\.arrive)\b")
WAIT_GROUP = re.compile(r"cp\.async\.wait_(?:group\s+(\d+)|all)\b")
MB_WAIT = re.compile(r"mbarrier\.(?:try|test)_wait\b")
BARRIER = re.compile(r"(?:bar|barrier)(?:\.cta)?\.(?:sync|red)\b")   # __syncthreads() and kin
LOAD = re.compile(r"ld(?:\.\w+)*\.shared\b")
INIT = re.compile(r"mbarrier\.init\b")
FENCE = re.compile(r"fence\.proxy\.async(?:\.shared::c\w+)?$|fence\.mbarrier_init\b")
EXPECT = re.compile(r"mbarrier\.(?:arrive\.)?expect_tx\b")
ARRIVE = re.compile(r"mbarrier\.arrive\b")


class Instruction(NamedTuple):
    op: str
    line: int   # the answer's line it comes from (0: unknown)


def instructions(ptx: str, ex: Exercise) -> list[Instruction]:
    """The kernel's instructions in the order the PTX lists them, with each called ``.func``'s
    put in place of its call (a recursive call is left as it is)."""
    files = {n for n, path in FILE.findall(ptx) if path.endswith(f"{ex.kernel}.cu")}
    bodies, name, pending = {}, None, ""
    for text in ptx.splitlines():   # a statement may span lines (a call's operands do)
        text = text.split("//", 1)[0].strip()
        if m := FUNCTION.match(text):
            name, pending = m[1], ""
            bodies[name] = []
        elif name and text.startswith(".loc"):
            bodies[name].append(text)
        elif name and text and not text.endswith(":"):
            parts = text.split(";")
            if len(parts) > 1:
                parts[0] = pending + " " + parts[0]
                bodies[name].extend(op.strip(" {}") for op in parts[:-1])
                pending = parts[-1]
            else:
                pending += " " + text
    if ex.kernel not in bodies:
        raise NotYet(f"there is no kernel named {ex.kernel}. Keep the skeleton's "
                     f"extern \"C\" __global__ void {ex.kernel}(...) as it is.",
                     f"{ex.kernel}라는 커널이 없습니다. 스켈레톤의 extern \"C\" __global__ void "
                     f"{ex.kernel}(...)를 그대로 두세요.")
    out: list[Instruction] = []

    def walk(function: str, stack: tuple, line: int) -> None:
        for text in bodies[function]:
            if m := LOC.match(text):
                if m[3] in files:     # inlined: the line that calls it
                    line = int(m[4])
                elif m[1] in files:
                    line = int(m[2])
                continue
            call = CALL.match(text)
            if call and call[1] in bodies and call[1] not in stack:
                walk(call[1], stack + (call[1],), line)
            elif text and not text.startswith("."):
                out.append(Instruction(text, line))
    walk(ex.kernel, (ex.kernel,), 0)
    return out


def _at(ins: Instruction) -> tuple[str, str]:
    return ((f" (line {ins.line})", f"({ins.line}번째 줄)") if ins.line else ("", ""))


def _find(code: list[Instruction], pattern: re.Pattern, start: int = 0) -> list[int]:
    return [i for i in range(start, len(code)) if pattern.match(code[i].op)]


def check(ptx: str, ex: Exercise) -> None:
    code = instructions(ptx, ex)
    {"async_halo": _pipeline, "double_buffer": _pipeline, "bulk": _bulk,
     "warp_specialized": _handoff}[ex.key](code, ex)


# what each exercise's checks look for, and what only a run shows, as a verdict that ran none
# says them
_PIPELINE = (Text("copies, commits, waits, a barrier after each wait",
                  "복사, 커밋, 대기, 대기 뒤의 배리어"),
             Text("whether the indices and the halo's zeros are right and no race is left",
                  "인덱스와 헤일로의 0이 맞는지, 경쟁 상태가 남았는지"))
COVERS = {"async_halo": _PIPELINE, "double_buffer": _PIPELINE,
          "bulk": (Text("the barriers' init and its fence before the first bulk copy, the bytes "
                        "announced, a wait", "첫 벌크 복사 앞의 배리어 초기화와 펜스, 알린 바이트, 대기"),
                   Text("whether the bytes, the arrival count and the phases are right",
                        "바이트 수와 도착 수, 페이즈가 맞는지")),
          "warp_specialized": (Text("a wait on a barrier, a release after the reads with its "
                                    "proxy fence first",
                                    "배리어 대기, 읽은 뒤의 반납과 그 앞의 프록시 펜스"),
                               Text("whether each side waits on the right barrier with the right "
                                    "parity and no race is left",
                                    "양쪽이 저마다 맞는 배리어에서 맞는 패리티로 기다리는지, 경쟁 "
                                    "상태가 남았는지"))}


def _pipeline(code: list[Instruction], ex: Exercise) -> None:
    """Exercises 1 and 2: cp.async copies, committed, a wait that leaves this tile's batch
    complete, and a block barrier after the wait before the compute reads."""
    copies = _find(code, COPY)
    if not copies:
        raise NotYet("no asynchronous copy: Phase 1 copies no cell with cuda::memcpy_async. "
                     "Copy each cell of x_s with cuda::memcpy_async(&x_s[j], &x[g], "
                     "sizeof(float), pipe).",
                     "비동기 복사가 없습니다. 1단계에서 cuda::memcpy_async로 복사하는 셀이 하나도 "
                     "없습니다. x_s의 셀마다 cuda::memcpy_async(&x_s[j], &x[g], sizeof(float), "
                     "pipe)로 복사하세요.")
    last = copies[-1]
    if not _find(code, COMMIT, last):
        en, ko = _at(code[last])
        raise NotYet(f"the copies{en} are never committed: a wait waits only for committed "
                     "batches. Call pipe.producer_commit() after issuing them.",
                     f"복사{ko}가 한 번도 커밋되지 않습니다. 대기는 커밋된 배치만 기다립니다. 복사를 "
                     "발행한 뒤 pipe.producer_commit()을 호출하세요.")
    waits = _find(code, WAIT_GROUP)
    if not waits and not _find(code, MB_WAIT):
        raise NotYet("no wait: Phase 4 may read the tile before its copies land. Call "
                     "pipe.consumer_wait() before the compute.",
                     "대기가 없습니다. 복사가 도착하기 전에 4단계가 타일을 읽을 수 있습니다. 계산 "
                     "전에 pipe.consumer_wait()를 호출하세요.")
    if not waits:
        return   # the copies complete on a cuda::barrier: its wait is the block's barrier
    allowed = 1 if ex.key == "double_buffer" else 0
    counts = [int(m[1] or 0) for m in (WAIT_GROUP.match(code[i].op) for i in waits)]
    if min(counts) > allowed:
        en, ko = _at(code[waits[0]])
        left = min(counts)
        raise NotYet(
            f"the wait{en} leaves the tile in flight: "
            + ("it waits for all batches but the newest, which is this tile's." if left == 1 else
               f"it waits for all but the newest {left} batches, and this tile's is one of them.")
            + " Wait with pipe.consumer_wait()"
            + (" or wait_prior<1>." if allowed else " or wait_prior<0>."),
            f"대기{ko}가 타일을 진행 중인 채로 둡니다. "
            + ("가장 최근 배치 하나만 빼고 기다리는데, 그 배치가 바로 이 타일의 것입니다." if left == 1 else
               f"가장 최근 배치 {left}개만 빼고 기다리는데, 이 타일의 배치도 그중 하나입니다.")
            + " pipe.consumer_wait()"
            + (" 또는 wait_prior<1>로 기다리세요." if allowed else " 또는 wait_prior<0>으로 기다리세요."))
    for w in waits:   # a cuda::barrier's wait is a block barrier too
        after = next((i for i in range(w + 1, len(code)) if BARRIER.match(code[i].op)
                      or MB_WAIT.match(code[i].op) or LOAD.match(code[i].op)), None)
        if after is not None and not LOAD.match(code[after].op):
            continue
        before = [i for i in range(last, w) if BARRIER.match(code[i].op)]
        en, ko = _at(code[w])
        if before:
            ben, bko = _at(code[before[-1]])
            raise NotYet(f"the barrier{ben} comes before the wait{en}: a thread may pass it "
                         "while other threads' copies are still landing. Swap them: "
                         "pipe.consumer_wait(), then __syncthreads().",
                         f"배리어{bko}가 대기{ko}보다 앞에 있습니다. 다른 스레드의 복사가 아직 도착하는 "
                         "중에 한 스레드가 배리어를 지나갈 수 있습니다. 둘의 순서를 바꿔 "
                         "pipe.consumer_wait() 다음에 __syncthreads()를 두세요.")
        raise NotYet(f"no __syncthreads() after the wait{en}: each thread waits only for its own "
                     "copies, and the compute reads other threads' cells. Call __syncthreads() "
                     "after pipe.consumer_wait().",
                     f"대기{ko} 뒤에 __syncthreads()가 없습니다. 각 스레드는 자기 복사만 기다리는데, "
                     "계산은 다른 스레드가 복사한 셀도 읽습니다. pipe.consumer_wait() 뒤에 "
                     "__syncthreads()를 호출하세요.")


def _bulk(code: list[Instruction], ex: Exercise) -> None:
    """Exercise 3: the barriers initialised and fenced before the first bulk copy, a bulk copy
    with the bytes it brings announced, and a wait on the barrier."""
    inits = _find(code, INIT)
    if not inits:
        raise NotYet("no barrier is initialised: thread 0 must call init(&bar[s], CONV_THREADS) "
                     "for every stage before __syncthreads().",
                     "초기화되는 배리어가 없습니다. __syncthreads() 전에 스레드 0이 스테이지마다 "
                     "init(&bar[s], CONV_THREADS)를 호출해야 합니다.")
    bulk = _find(code, BULK)
    end = next((b for b in bulk if b >= inits[-1]), len(code))   # the first bulk copy after it
    if not any(FENCE.match(code[i].op) for i in range(inits[-1], end)):
        en, ko = _at(code[inits[-1]])
        raise NotYet(f"no fence after the barriers' init{en}: the copy engine may not see them "
                     "initialised. After the init, thread 0 calls "
                     "cuda::device::experimental::fence_proxy_async_shared_cta() (or asm "
                     "volatile(\"fence.proxy.async.shared::cta;\")), before __syncthreads().",
                     f"배리어 초기화{ko} 뒤에 펜스가 없습니다. 복사 엔진에는 배리어가 아직 초기화되지 "
                     "않은 것으로 보일 수 있습니다. 초기화 뒤, __syncthreads() 전에 스레드 0이 "
                     "cuda::device::experimental::fence_proxy_async_shared_cta()(또는 asm "
                     "volatile(\"fence.proxy.async.shared::cta;\"))를 호출하세요.")
    if not bulk:
        raise NotYet("no bulk copy: issue_tile copies nothing with the copy engine. Thread 0 "
                     "copies x[lo, hi) with one cuda::memcpy_async(..., "
                     "cuda::aligned_size_t<16>(bytes), bar).",
                     "벌크 복사가 없습니다. issue_tile이 복사 엔진으로 아무것도 복사하지 않습니다. "
                     "스레드 0이 cuda::memcpy_async(..., cuda::aligned_size_t<16>(bytes), bar) "
                     "한 번으로 x[lo, hi)를 복사하게 하세요.")
    if not _find(code, EXPECT):
        en, ko = _at(code[bulk[0]])
        raise NotYet(f"the bulk copy{en} announces no bytes: the barrier's phase may complete "
                     "before they land. Copy with cuda::memcpy_async onto the barrier (it adds "
                     "the bytes), or add them with cuda::device::barrier_arrive_tx.",
                     f"벌크 복사{ko}가 가져올 바이트를 알리지 않습니다. 바이트가 도착하기 전에 "
                     "배리어의 페이즈가 완료될 수 있습니다. 배리어를 넘겨 cuda::memcpy_async로 "
                     "복사하세요(바이트를 더해 줍니다). 아니면 cuda::device::barrier_arrive_tx로 "
                     "바이트를 더하세요.")
    if not _find(code, MB_WAIT):
        raise NotYet("no wait on the barrier: Phase 4 may read the buffer before its bytes "
                     "land. Arrive and wait: bar[stage].wait(bar[stage].arrive()).",
                     "배리어에서 기다리지 않습니다. 바이트가 도착하기 전에 4단계가 버퍼를 읽을 수 "
                     "있습니다. bar[stage].wait(bar[stage].arrive())로 도착하고 기다리세요.")


def _handoff(code: list[Instruction], ex: Exercise) -> None:
    """Exercise 4: waits, and after the compute's reads a proxy fence, then an arrival."""
    if not _find(code, MB_WAIT):
        raise NotYet("no wait: neither the producer nor the compute warps wait on a barrier. "
                     "The producer waits on empty[s] before a fill, the compute on full[s] "
                     "before reading: mbar_wait(&full[s], round & 1).",
                     "대기가 없습니다. 프로듀서도 계산 워프도 배리어에서 기다리지 않습니다. 프로듀서는 "
                     "채우기 전에 empty[s]를, 계산 워프는 읽기 전에 full[s]를 기다립니다. "
                     "mbar_wait(&full[s], round & 1)처럼 씁니다.")
    loads = _find(code, LOAD)
    if not loads:
        return
    arrivals = _find(code, ARRIVE, loads[-1])
    en, ko = _at(code[loads[-1]])
    if not arrivals:
        raise NotYet(f"no release after the reads{en}: the compute threads do not arrive on "
                     "empty[s] after reading buffer s, so the producer refills it while it is "
                     "read, or never. After the reads, fence, then mbar_arrive(&empty[s]).",
                     f"읽기{ko} 뒤에 반납이 없습니다. 계산 스레드가 버퍼 s를 읽은 뒤 empty[s]에 "
                     "도착하지 않습니다. 그래서 프로듀서가 아직 읽는 중인 버퍼를 다시 채우거나, 영영 "
                     "채우지 못합니다. 읽은 뒤 펜스를 두고 mbar_arrive(&empty[s])로 도착하세요.")
    if not any(FENCE.match(code[i].op) for i in range(loads[-1], arrivals[0])):
        aen, ako = _at(code[arrivals[0]])
        raise NotYet(f"no proxy fence before the release{aen}: the copy engine's next fill of "
                     "buffer s may overtake this thread's reads of it. Before "
                     "mbar_arrive(&empty[s]), call asm volatile(\"fence.proxy.async.shared::cta;\" "
                     "::: \"memory\").",
                     f"반납{ako} 앞에 프록시 펜스가 없습니다. 복사 엔진이 버퍼 s를 다음에 채우는 것이 "
                     "이 스레드의 읽기를 앞지를 수 있습니다. mbar_arrive(&empty[s]) 전에 asm volatile("
                     "\"fence.proxy.async.shared::cta;\" ::: \"memory\")를 호출하세요.")
