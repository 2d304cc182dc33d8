"""The exercise check's verdicts in Korean.

:func:`kernels.teach.exercise.report` makes every verdict in English and shows it as a
:class:`~kernels.edition.Text` whose Korean is :func:`korean` of that English. The check's
messages are a fixed set of templates (the ``ExerciseError`` texts of ``exercise.py``, its
steps' ``missing`` and ``misplaced`` texts, the exercises' summaries and advice, the GPU run's
sentences), so the translation is a table: each English template, written with ``{name}``
places for its variable parts, becomes a regular expression; a verdict that one matches is
rewritten into that template's Korean, the variable parts kept as they are (numbers, line
numbers, file names, instructions, the learner's code, the compiler's own words) or, for a part
that is itself a message (a summary, a position, the advice), translated by its own table.

A verdict is ``FRAME: BODY``. The frame is translated (:data:`FRAMES`); a ``NOT YET`` or
``NOT CHECKED`` body is one message (:data:`MESSAGES`); a ``PASSED`` or ``COMPILES, NOT RUN``
body is clauses joined by ``"; "`` (outside parentheses), each translated by :data:`CLAUSES`
and made a Korean sentence. What the table does not know is shown with the Korean frame, a
Korean note that the details are in English (:data:`FALLBACK_NOTE`) and the English text:
:func:`korean` never raises.
"""

from __future__ import annotations

import re
from typing import Callable

# The frames report() writes, English -> Korean, longest first.
FRAMES = (
    ("COMPILES, NOT RUN: ", "컴파일됨, 실행 안 함: "),
    ("NOT CHECKED: ", "검사 못 함: "),
    ("NOT YET: ", "아직: "),
    ("PASSED: ", "통과: "),
)
FALLBACK_NOTE = "자세한 내용은 번역되지 않아 영어 원문으로 보여 드립니다."
MAX_MATCHED = 20_000   # longer texts (no real verdict is) are shown in English: no slow matching

# Regular expressions for kinds of places: {name:KIND} in an English template.
KINDS = {
    "": r".+?",                 # anything (the shortest that lets the rest match)
    "d": r"\d+",                # a count, a line number
    "n": r"[\d,]+",             # a number with thousands separators
    "g": r"[-+]?(?:nan|inf|[\d.]+(?:e[-+]?\d+)?)",   # a value printed with :.6g
    "id": r"[\w:.$%]+",         # an identifier or an instruction's opcode
    "any": r".*",               # anything, empty too, greedy
    "code": r"`[^\n]*?`",       # the learner's line as a code span
    "file": r"[^\s()]+",         # a file name, <cuda/pipeline>
}
KINDS["value"] = rf"never written \(NaN\)|({KINDS['g']}), expected ({KINDS['g']})"
PLACE = re.compile(r"\{(\w+)(?::(\w*))?\}")

Translation = Callable[[str], "str | None"]


class Rule:
    """An English template (``{name}`` places) and its Korean (``{name}`` places too, or a
    function of the places' values); ``subs`` translates places that are messages themselves."""

    def __init__(self, en: str, ko, subs: dict[str, Translation] | None = None):
        pattern, pos = [], 0
        for m in PLACE.finditer(en):
            pattern.append(re.escape(en[pos:m.start()]))
            pattern.append(f"(?P<{m[1]}>{KINDS[m[2] or '']})")
            pos = m.end()
        pattern.append(re.escape(en[pos:]))
        self.en = en
        self.regex = re.compile("".join(pattern), re.S)
        # the same with the shortest places the longest: a part that must translate may hold
        # the text that follows a place (a #pragma's own " is refused: ")
        self.longest = re.compile("".join(pattern).replace(f">{KINDS['']})", ">.+)"), re.S)
        self.ko = ko
        self.subs = subs or {}

    def apply(self, text: str) -> str | None:
        for regex in (self.regex, self.longest) if self.subs else (self.regex,):
            out = self._apply(regex, text)
            if out is not None:
                return out
        return None

    def _apply(self, regex: re.Pattern, text: str) -> str | None:
        m = regex.fullmatch(text)
        if not m:
            return None
        values = {}
        for name, value in m.groupdict().items():
            value = value or ""
            if name in self.subs:
                value = self.subs[name](value) if value else ""
                if value is None:
                    return None
            values[name] = value
        return self.ko(values) if callable(self.ko) else self.ko.format(**values)


def table(*rules: Rule) -> Translation:
    """A translation: the first rule that matches (and whose parts translate) decides."""
    def translate(text: str) -> str | None:
        for rule in rules:
            out = rule.apply(text)
            if out is not None:
                return out
        return None
    translate.rules = rules
    return translate


def R(en, ko, **subs) -> Rule:
    return Rule(en, ko, subs)


# Parts that are messages of their own ------------------------------------------------------------

ONE_DIMENSIONAL = table(R(
    " The launch is one-dimensional: threadIdx.y and threadIdx.z are 0, blockDim.y and "
    "blockDim.z 1, in every thread; use threadIdx.x and blockDim.x.",
    " 실행이 일차원이라 모든 스레드에서 threadIdx.y와 threadIdx.z는 0, blockDim.y와 blockDim.z는 "
    "1입니다. threadIdx.x와 blockDim.x를 쓰세요."))

NOT_OFFERED = (
    "this check compiles with libcu++ (<cuda/pipeline>, <cuda/barrier>) and conv1d_common.cuh "
    "only, not the CUDA toolkit's other headers: write what the FILL IN places ask with what the "
    "skeleton includes (cuda::memcpy_async, cuda::pipeline, cuda::barrier, inline PTX)")
NOT_OFFERED_KO = (
    "이 검사는 libcu++(<cuda/pipeline>, <cuda/barrier>)와 conv1d_common.cuh만으로 컴파일하며, "
    "CUDA 툴킷의 다른 헤더는 쓰지 않습니다. FILL IN 자리가 요구하는 것은 스켈레톤이 포함하는 "
    "것으로 쓰세요(cuda::memcpy_async, cuda::pipeline, cuda::barrier, 인라인 PTX).")
ALLOWED = "\"conv1d_common.cuh\" and CUDA's own headers such as <cuda/pipeline>"
ALLOWED_KO = "\"conv1d_common.cuh\"와 <cuda/pipeline> 같은 CUDA 자체 헤더"
SIGNATURE = "(const float* x, const float* w, float* y, int n)"
KEEP = f"keep extern \"C\" __global__ void {{name:id}}{SIGNATURE}"
KEEP_KO = f"커널 선언은 extern \"C\" __global__ void {{name}}{SIGNATURE} 그대로 두세요."

# the first error of NVRTC's log, on the learner's line (exercise._first_error): its own words kept
DIAGNOSTIC = table(
    R("line {n:d}, {code:code}: {what:any} (in {file:file})", "{n}번 줄 {code}: {what} ({file} 안에서)"),
    R("line {n:d}, {code:code}: {what:any}", "{n}번 줄 {code}: {what}"),
    R("in {file}, line {n:d}: {what:any}", "{file}의 {n}번 줄: {what}"),
    R("(no message)", "(메시지 없음)"),
    R("{what:any}", "{what}"),   # ptxas's text, or the log's first line: as it is
)

TOO_LARGE = table(
    R("more than {n:d} instructions, functions inlined", "함수를 인라인하면 명령어가 {n}개를 넘습니다"),
    R("more than {n:d} calls of its functions", "함수 호출이 {n}번을 넘습니다"),
    R("its functions take too long to follow", "함수를 따라가는 데 너무 오래 걸립니다"),
    R("its loops nest too deep to follow", "루프가 너무 깊이 중첩되어 따라갈 수 없습니다"),
    R("its checks take too long", "검사가 너무 오래 걸립니다"),
    R("too many branches round the values its arrivals' barriers come from",
      "도착이 가리키는 배리어의 주소가 나오는 값 주변에 분기가 너무 많습니다"),
    R("{n:d} mbarrier waits, more than the {m:d} it reads",
      "mbarrier 대기가 {n}개로, 검사가 읽는 {m}개를 넘습니다"),
    R("{n:d} mbarrier arrivals, more than the {m:d} it reads",
      "mbarrier 도착이 {n}개로, 검사가 읽는 {m}개를 넘습니다"),
    R("{n:g} MiB", "{n} MiB"),
)


def _jitter_found(v: dict) -> str:
    parts = []
    if v["reads"]:
        parts.append(f"PTX가 시계를 {v['expected']}번이 아니라 {v['reads']}번 읽습니다")
    if v["point"]:
        parts.append(f"PHASE({v['point']})의 대기가 없습니다")
    if len(parts) == 2:
        parts[0] = parts[0].removesuffix("읽습니다") + "읽고"
    return ", ".join(parts)


JITTER_FOUND = table(
    R("its PTX reads the clock {reads:d} times, not {expected:d} and it has no wait for "
      "PHASE({point:d})", _jitter_found),
    R("its PTX reads the clock {reads:d} times, not {expected:d}", lambda v: _jitter_found(
        {**v, "point": ""})),
    R("it has no wait for PHASE({point:d})", lambda v: _jitter_found({**v, "reads": ""})),
)

# exercise._describe: where the first wrong output lies
POSITION = table(
    R("at the left end of the vector (its halo lies outside: zeros)",
      "이 출력은 벡터의 왼쪽 끝에 있습니다(헤일로가 벡터 바깥이라 영으로 채워집니다)."),
    R("at the right end of the vector (its halo lies outside: zeros)",
      "이 출력은 벡터의 오른쪽 끝에 있습니다(헤일로가 벡터 바깥이라 영으로 채워집니다)."),
    R("at a tile boundary (i mod tile = {t:d}: it needs the neighbouring tile's halo)",
      "이 출력은 타일 경계에 있습니다(i mod tile = {t}, 이웃 타일의 헤일로가 필요합니다)."),
    R("inside a tile (i mod tile = {t:d})", "이 출력은 타일 안쪽에 있습니다(i mod tile = {t})."),
)

VALUE = re.compile(KINDS["value"])


def _wrong_found(v: dict) -> str:
    layout = (f", 스테이지 {v['stages']}개" if v["stages"] else "") + (
        f", 블록 {v['blocks']}개" if v["blocks"] else "")
    value = VALUE.fullmatch(v["what"])
    if value[1] is None:
        first = f"첫 번째로 틀린 출력 y[{v['i']}]에는 값이 쓰이지 않았습니다(NaN)."
    else:
        first = f"첫 번째로 틀린 출력 y[{v['i']}]의 값은 {value[1]}인데, 기댓값은 {value[2]}입니다."
    return (f"n={v['n']}, tile={v['tile']}, K={v['k']}, 스레드 {v['threads']}개{layout}에서 "
            f"출력 {v['bad']}개가 틀립니다. {first} {v['where']}")


def _with_layout(rule_values: dict, text: str) -> dict:
    m = re.fullmatch(r"(?:, (\d+) stages)?(?:, (\d+) blocks)?", text)
    return {**rule_values, "stages": m[1] or "", "blocks": m[2] or ""}


def _wrong(v: dict) -> str | None:
    return _wrong_found(_with_layout(v, v["stages_"]))


WRONG = table(
    R("n={n:d}, tile={tile:d}, K={k:d}, {threads:d} threads{stages_:any}: {bad:d} wrong outputs; "
      "the first, y[{i:d}], is {what:value}, {where}", _wrong,
      stages_=lambda s: s if re.fullmatch(r"(?:, \d+ stages)?(?:, \d+ blocks)?", s) else None,
      where=POSITION),
)

ADVICE = table(
    R("Does every thread call pipe.consumer_wait() and then __syncthreads() before Phase {p:d}?",
      "모든 스레드가 {p}단계 전에 pipe.consumer_wait()와 __syncthreads()를 차례로 호출하나요?"),
    R("Does every thread wait (pipe.consumer_wait(), then __syncthreads()) before reading a "
      "buffer, and is there a block barrier after computing from a buffer and before the copy "
      "that refills it?",
      "모든 스레드가 버퍼를 읽기 전에 기다리나요(pipe.consumer_wait(), 그다음 __syncthreads())? "
      "그리고 버퍼로 계산한 뒤, 그 버퍼를 다시 채우는 복사 전에 블록 배리어가 있나요?"),
    R("Does every thread arrive and wait on the stage's barrier before reading the buffer?",
      "모든 스레드가 버퍼를 읽기 전에 스테이지의 배리어에 도착하고 기다리나요?"),
    R("Does the producer wait on empty[s] before filling buffer s, the compute wait on full[s] "
      "before reading it and arrive on empty[s] only after, each wait with the parity of the "
      "round it waits for?",
      "프로듀서가 버퍼 s를 채우기 전에 empty[s]에서 기다리고, 계산은 버퍼를 읽기 전에 full[s]에서 "
      "기다린 뒤 다 읽고 나서야 empty[s]에 도착하나요? 그리고 각 대기가 기다리는 회차의 패리티를 "
      "쓰나요?"),
    R("At the wait, is this tile's batch complete, in the first round and the last too? "
      "pipe.consumer_wait() waits for a thread's oldest batch, wait_prior<1> for all but its "
      "newest: commit one batch every round (empty when there is no next tile) after issuing the "
      "next tile, and only then wait.",
      "대기하는 시점에 이 타일의 배치가 끝나 있나요? 첫 회차와 마지막 회차에도 그런가요? "
      "pipe.consumer_wait()는 스레드의 가장 오래된 배치를, wait_prior<1>은 가장 새로운 배치를 뺀 "
      "나머지를 기다립니다. 다음 타일을 발행한 뒤 회차마다 배치를 하나씩 커밋하고(다음 타일이 "
      "없으면 빈 배치라도), 그다음에 기다리세요."),
    R("Does each round arrive on and wait for its own stage's barrier, bar[stage] (with a parity, "
      "that barrier's phase for this round), so that the wait returns only once this round's bulk "
      "copy has landed?",
      "회차마다 자기 스테이지의 배리어 bar[stage]에 도착하고 그 배리어에서 기다리나요(패리티를 "
      "쓴다면 이번 회차에 해당하는 그 배리어의 페이즈)? 그래야 이번 회차의 벌크 복사가 도착한 "
      "뒤에야 대기가 끝납니다."),
    R("Does the compute wait on full[s] with the parity of the fill it reads (the r-th fill of "
      "buffer s: r & 1), and the producer on empty[s] with the parity of the release it needs, so "
      "that no wait returns on an earlier phase?",
      "계산은 읽을 채움의 패리티(버퍼 s의 r번째 채움이면 r & 1)로 full[s]에서 기다리고, 프로듀서는 "
      "필요한 반납의 패리티로 empty[s]에서 기다리나요? 그래야 어떤 대기도 이전 페이즈에서 끝나 "
      "버리지 않습니다."),
)

# the exercises' summaries (Exercise.summary, with the mbarrier-wait variant of _check)
SUMMARY_BARRIER = table(
    R("a block barrier", "블록 배리어"),
    R("an mbarrier wait (its thread count is not checked)",
      "mbarrier 대기(그 스레드 수는 검사하지 않습니다)"),
)
SUMMARY = table(
    R("its sm_{a:d} PTX has cp.async, then a wait, then {bar}, and in the tile loop the next "
      "tile's copies committed as one batch before a wait that leaves only that batch in flight, "
      "and {bar2} between the compute's shared loads and the next cp.async",
      "sm_{a}용 PTX에 cp.async, 대기, {bar}가 차례로 있고, 타일 루프 안에는 다음 타일의 복사를 "
      "한 배치로 커밋한 뒤 그 배치만 진행 중으로 남기는 대기와, 계산의 공유 메모리 로드와 다음 "
      "cp.async 사이의 {bar2}가 있습니다", bar=SUMMARY_BARRIER, bar2=SUMMARY_BARRIER),
    R("its sm_{a:d} PTX has cp.async, then a wait, then {bar}",
      "sm_{a}용 PTX에 cp.async, 대기, {bar}가 차례로 있습니다", bar=SUMMARY_BARRIER),
    R("its sm_{a:d} PTX initialises mbarriers, fences, has cp.async.bulk with the bytes to expect "
      "and waits on the barrier",
      "sm_{a}용 PTX가 mbarrier를 초기화하고 펜스를 두며, 기다릴 바이트 수와 함께 cp.async.bulk를 "
      "발행하고 배리어에서 기다립니다"),
    R("its sm_{a:d} PTX initialises mbarriers and fences them, issues cp.async.bulk with the bytes "
      "to expect, waits on an mbarrier round the producer's loop and before the compute's shared "
      "loads, and arrives on one after them (which barrier and which parity each wait names, only "
      "a run shows)",
      "sm_{a}용 PTX가 mbarrier를 초기화하고 펜스를 두며, 기다릴 바이트 수와 함께 cp.async.bulk를 "
      "발행하고, 프로듀서의 루프 안에서, 그리고 계산 워프의 공유 메모리 로드들 앞에서 mbarrier를 "
      "기다리며, 그 로드들 뒤에는 mbarrier에 도착합니다(각 대기가 어느 배리어의 어느 패리티를 "
      "가리키는지는 실행해 봐야 알 수 있습니다)"),
)

# The clauses of a PASSED or COMPILES, NOT RUN verdict (exercise._check), each a Korean sentence.
CLAUSES = table(
    R("compiles with NVRTC, and {summary}", "NVRTC로 컴파일되며, {summary}.", summary=SUMMARY),
    R("running it needs a GPU (open this notebook in Colab with a GPU runtime)",
      "실행하려면 GPU가 필요합니다(이 노트북을 Colab에서 GPU 런타임으로 여세요)."),
    R("running it needs sm_{a:d} or newer (an H100 or H200; Colab's T4, L4 and A100 are older)",
      "실행하려면 sm_{a} 이상의 GPU(H100이나 H200)가 필요합니다. Colab의 T4, L4, A100은 그보다 "
      "오래된 세대입니다."),
    R("running it needs sm_{a:d} or newer, and the book runs as sm_{b:d} here",
      "실행하려면 sm_{a} 이상이 필요한데, 여기서 책이 실행되는 세대는 sm_{b}입니다."),
    R("on sm_{a:d} or newer the check would run it at {c:d} configurations, {l:d} times under "
      "the stress build and {s:d} times with its input in host memory, each output against a "
      "float64 reference",
      "sm_{a} 이상의 GPU에서라면 검사는 구성 {c}개로 커널을 실행하고, 스트레스 빌드로 {l}번, 입력을 "
      "호스트 메모리에 두고 {s}번 더 실행해, 모든 출력을 float64 기준값과 비교합니다."),
    R("correct on the GPU for all {c:d} configurations, and for {l:d} launches of each stress build "
      "at n={n:d} with tiles of {t1:d} and {t2:d}",
      "GPU에서 구성 {c}개 모두, 그리고 n={n}에서 타일 {t1}, {t2}의 스트레스 빌드 런치 {l}번씩 "
      "모두 출력이 올바릅니다."),
    R("correct on the GPU for all {c:d} configurations, and for {l:d} launches of the stress build "
      "at n={n:d}",
      "GPU에서 구성 {c}개 모두, 그리고 n={n}에서 스트레스 빌드의 런치 {l}번 모두 출력이 "
      "올바릅니다."),
    R("correct with its input in host memory too ({l:d} launches at n={n:d}, {s:d} stages: there "
      "each copy takes microseconds to land, so a wait that returns before the copies the "
      "compute reads have landed shows up as wrong outputs)",
      "입력을 호스트 메모리에 두어도 출력이 올바릅니다(n={n}, 스테이지 {s}개에서 런치 {l}번: "
      "호스트 메모리에서는 복사 하나가 도착하는 데 수 마이크로초가 걸려, 계산이 읽을 데이터의 "
      "복사가 도착하기 전에 반환하는 대기는 틀린 출력으로 드러납니다)."),
    R("correct with its input in host memory too ({l:d} launches at n={n:d}: there each copy "
      "takes microseconds to land, so a wait that returns before the copies the compute reads "
      "have landed shows up as wrong outputs)",
      "입력을 호스트 메모리에 두어도 출력이 올바릅니다(n={n}에서 런치 {l}번: 호스트 메모리에서는 "
      "복사 하나가 도착하는 데 수 마이크로초가 걸려, 계산이 읽을 데이터의 복사가 도착하기 전에 "
      "반환하는 대기는 틀린 출력으로 드러납니다)."),
    R("not run with its input in host memory: on sm_{a:d} the copies are synchronous, so no wait "
      "can return before they land (a wait that would shows only on sm_{b:d} or newer)",
      "입력을 호스트 메모리에 둔 실행은 하지 않았습니다. sm_{a}에서는 복사가 동기식이어서 복사가 "
      "도착하기 전에 반환하는 대기가 있을 수 없습니다(그런 대기는 sm_{b} 이상에서만 드러납니다)."),
    R("not checked: that each of those instructions runs on every path, that the copies feed "
      "the compute, and that one thread alone copies each cell",
      "검사하지 않은 것도 있습니다. 위 명령어가 각각 모든 경로에서 실행되는지, 복사한 데이터가 "
      "실제로 계산에 쓰이는지, 각 셀을 한 스레드만 복사하는지는 확인하지 않습니다."),
)

# The messages of a NOT YET verdict: exercise.py's ExerciseError texts ----------------------------

_THREE = "in Phase {p:d}, after the copies are committed."
_THREE_KO = "{p}단계에서 복사를 커밋한 뒤 pipe.consumer_wait()를 호출하세요."

STEP_MESSAGES = [
    # async copies (COPY, WAIT_ALL, WAIT, BARRIER, READY, READY_FIRST, LOOP_COPY, REFILL)
    R("it compiles, but copies nothing asynchronously: on sm_{a:d} the PTX has no cp.async. "
      "Copy with cuda::memcpy_async(&x_s[j], &x[g], sizeof(float), pipe).",
      "컴파일은 되지만 비동기로 복사하는 것이 없습니다. sm_{a}용 PTX에 cp.async가 없습니다. "
      "cuda::memcpy_async(&x_s[j], &x[g], sizeof(float), pipe)로 복사하세요."),
    R("it waits before its copies are issued (in the PTX, no cp.async.wait follows a cp.async on "
      "any path): call pipe.consumer_wait() " + _THREE,
      "복사를 발행하기 전에 기다립니다(PTX의 어느 경로에서도 cp.async 뒤에 cp.async.wait가 오지 "
      "않습니다). " + _THREE_KO),
    R("it never waits for its copies, or not for all of them (the PTX has no cp.async.wait_all or "
      "cp.async.wait_group {z:d}, nor an mbarrier wait in a loop; wait_group N and wait_prior<N> "
      "with N > {z2:d} leave N batches in flight, and this kernel has one): call "
      "pipe.consumer_wait() " + _THREE,
      "복사를 기다리지 않거나, 전부 기다리지는 않습니다(PTX에 cp.async.wait_all도, "
      "cp.async.wait_group {z}도, 루프 안의 mbarrier 대기도 없습니다. N > {z2}인 wait_group N과 "
      "wait_prior<N>은 배치 N개를 진행 중으로 남기는데, 이 커널의 배치는 하나입니다). " + _THREE_KO),
    R("it never waits for its copies (the PTX has no cp.async.wait_all or wait_group {a:d} or "
      "{b:d}; with two buffers, wait_group N and wait_prior<N> with N > {c:d} leave every batch in "
      "flight): call pipe.consumer_wait() " + _THREE,
      "복사를 기다리지 않습니다(PTX에 cp.async.wait_all도, wait_group {a}이나 {b}도 없습니다. "
      "버퍼가 두 개이면 N > {c}인 wait_group N과 wait_prior<N>은 모든 배치를 진행 중으로 "
      "남깁니다). " + _THREE_KO),
    R("it waits for this thread's copies but not for the other threads' (the PTX has no block "
      "barrier, a bar.sync for all the block's threads, after cp.async.wait; one for fewer threads "
      "is not one): call __syncthreads() after pipe.consumer_wait().",
      "이 스레드의 복사는 기다리지만 다른 스레드의 복사는 기다리지 않습니다(PTX에서 cp.async.wait "
      "뒤에 블록의 모든 스레드를 기다리는 블록 배리어(bar.sync)가 없습니다. 그보다 적은 스레드를 "
      "기다리는 bar.sync는 블록 배리어가 아닙니다). pipe.consumer_wait() 뒤에 __syncthreads()를 "
      "호출하세요."),
    R("it synchronises before it waits (in the PTX, no bar.sync follows a cp.async.wait on any "
      "path): call __syncthreads() after pipe.consumer_wait(), so that every thread's copies have "
      "landed when the barrier opens.",
      "기다리기 전에 동기화합니다(PTX의 어느 경로에서도 cp.async.wait 뒤에 bar.sync가 오지 "
      "않습니다). 배리어가 열릴 때 모든 스레드의 복사가 도착해 있도록 pipe.consumer_wait() 뒤에 "
      "__syncthreads()를 호출하세요."),
    R("it reads shared memory before every thread's copies have landed (in the PTX, a path from a "
      "cp.async reaches an ld.shared through no bar.sync {z:d} after its cp.async.commit_group and "
      "a cp.async.wait): commit the copies, then call pipe.consumer_wait() and then "
      "__syncthreads(), on every path, before Phase {p:d} reads x_s, and copy nothing after them.",
      "모든 스레드의 복사가 도착하기 전에 공유 메모리를 읽습니다(PTX에 cp.async에서 출발해, 그 "
      "cp.async.commit_group과 cp.async.wait 뒤의 bar.sync {z}을 거치지 않고 ld.shared에 이르는 "
      "경로가 있습니다). {p}단계가 x_s를 읽기 전에, 모든 경로에서 복사를 커밋하고 "
      "pipe.consumer_wait()와 __syncthreads()를 차례로 호출하세요. 그 뒤에는 아무것도 복사하지 "
      "마세요."),
    R("it reads a buffer before the block has synchronised (in the PTX, a path from the kernel's "
      "entry reaches an ld.shared through no bar.sync {z:d}): in the tile loop, call "
      "pipe.consumer_wait() and then __syncthreads(), on every path, before Phase {p:d} reads "
      "x_s[stage], so that every thread's copies have landed.",
      "블록이 동기화하기 전에 버퍼를 읽습니다(PTX에 커널의 진입점에서 bar.sync {z}을 거치지 않고 "
      "ld.shared에 이르는 경로가 있습니다). 모든 스레드의 복사가 도착해 있도록, 타일 루프 안에서 "
      "{p}단계가 x_s[stage]를 읽기 전에 모든 경로에서 pipe.consumer_wait()와 __syncthreads()를 "
      "차례로 호출하세요."),
    R("it reads shared memory before the block has synchronised (in the PTX, a path from the "
      "kernel's entry reaches a read, an ld.shared or an atomic such as atomicAdd, of an array "
      "no copy fills, such as the taps' w_s or a counter, through no bar.sync 0): what another "
      "thread stores there may not be there yet; call __syncthreads() between the stores and "
      "the first read, even where one thread alone touches it (the check does not count "
      "threads).",
      "블록이 동기화하기 전에 공유 메모리를 읽습니다(PTX에 커널의 진입점에서 bar.sync 0을 거치지 "
      "않고, 탭의 w_s나 카운터처럼 복사가 채우지 않는 배열을 읽는 명령어, 곧 ld.shared나 "
      "atomicAdd 같은 원자 연산에 이르는 경로가 있습니다). 다른 스레드가 그곳에 저장한 값이 아직 "
      "없을 수 있으니, 저장과 첫 읽기 사이에 __syncthreads()를 호출하세요. 한 스레드만 쓰는 "
      "변수여도 그렇게 하세요(검사는 스레드 수를 세지 않습니다)."),
    R("a compute thread that has read buffer s may not arrive on empty[s] after its reads, so "
      "the producer may refill the buffer while that thread still reads it (in the PTX, an "
      "ld.shared reaches, through no bar.warp.sync and no bar.sync, an mbarrier.arrive that a "
      "value differing between the threads guards or jumps over, or whose barrier it chooses): "
      "let every compute thread arrive on empty[s] once after Phase 4, with no if round it "
      "(empty[s] counts CONV_THREADS arrivals), or, if lane 0 arrives for its warp, call "
      "__syncwarp() with all 32 lanes (no mask, or 0xffffffff) just before. A test that always "
      "holds, or a flag, counts as such a skip: the check does not follow values.",
      "버퍼 s를 읽은 계산 스레드가 읽은 뒤 empty[s]에 도착하지 않을 수 있어, 그 스레드가 아직 읽는 "
      "동안 프로듀서가 버퍼를 다시 채울 수 있습니다(PTX에 ld.shared에서 bar.warp.sync도 bar.sync도 "
      "거치지 않고, 스레드마다 다른 값에 따라 실행되거나 건너뛰어지거나 배리어가 달라지는 "
      "mbarrier.arrive에 이르는 경로가 있습니다). 모든 계산 스레드가 4단계 뒤에 조건 없이 "
      "empty[s]에 한 번 도착하게 하세요(empty[s]는 도착 CONV_THREADS번을 기다립니다). 레인 0이 "
      "워프를 대신해 도착한다면 바로 앞에서 32개 레인 모두로(마스크 없이, 또는 0xffffffff) "
      "__syncwarp()를 호출하세요. 늘 참인 조건이나 플래그도 건너뛰기로 봅니다. 검사는 값을 "
      "따라가지 않습니다."),
    R("every thread copies the same shared cells (in the PTX, a copy into shared memory that "
      "every thread makes, to an address computed from nothing that differs between the "
      "threads): the tile is copied once per thread, and the threads' copies into each cell "
      "race; give each thread its own cells (for (int j = threadIdx.x; j < CONV_BUF; j += "
      "CONV_THREADS)), or let one thread make the copy.{axes:any}",
      "모든 스레드가 같은 공유 메모리 셀을 복사합니다(PTX에 모든 스레드가 같은 주소로 하는 공유 "
      "메모리 복사가 있고, 그 주소는 스레드마다 다른 값에 기대지 않습니다). 타일이 스레드 수만큼 "
      "복사되고, 같은 셀로의 복사끼리 경합합니다. 스레드마다 제 셀을 맡기거나(j를 threadIdx.x에서 "
      "시작해 CONV_THREADS씩 늘리는 루프), 한 스레드만 복사하게 하세요.{axes}",
      axes=ONE_DIMENSIONAL),
    R("every thread issues the bulk copy (in the PTX, a cp.async.bulk that every thread runs, "
      "to an address the same in all, under no test of the thread's index): the tile is copied "
      "once per thread, and the copies into each byte race; let one thread issue it: "
      "if (threadIdx.x == 0 && hi > lo).{axes:any}",
      "모든 스레드가 벌크 복사를 발행합니다(PTX에 모든 스레드가 실행하는 cp.async.bulk가 있고, 그 "
      "주소는 모든 스레드에서 같으며 스레드 번호를 따지는 조건 아래에 있지 않습니다). 타일이 스레드 "
      "수만큼 복사되고, 같은 바이트로의 복사끼리 경합합니다. if (threadIdx.x == 0 && hi > lo)로 "
      "한 스레드만 발행하게 하세요.{axes}",
      axes=ONE_DIMENSIONAL),
    R("in the tile loop it copies nothing asynchronously (in the PTX, no cp.async in the loop "
      "round the wait): the next tile's copy is the pipeline's, issue_tile(x_s[stage ^ {one:d}], "
      "x, n, next, pipe), so that it flies while this tile is computed; plain loads and stores "
      "give the same outputs and overlap nothing.",
      "타일 루프 안에서 비동기로 복사하는 것이 없습니다(PTX에서 대기를 둘러싼 루프 안에 cp.async가 "
      "없습니다). 다음 타일의 복사는 파이프라인으로 issue_tile(x_s[stage ^ {one}], x, n, next, "
      "pipe)처럼 발행하세요. 그래야 이 타일을 계산하는 동안 복사가 진행됩니다. 일반 로드와 저장도 "
      "같은 출력을 내지만 아무것도 중첩하지 않습니다."),
    R("in the tile loop it waits for every batch, the next tile's too (in the PTX, no "
      "cp.async.wait_group {one:d} in the loop round the wait): wait for this thread's oldest batch "
      "only, pipe.consumer_wait() (or cuda::pipeline_consumer_wait_prior<{one2:d}>), after the next "
      "tile's copy is committed, so that it flies while this tile is computed.",
      "타일 루프 안에서 모든 배치를, 다음 타일의 배치까지 기다립니다(PTX에서 대기를 둘러싼 루프 안에 "
      "cp.async.wait_group {one}이 없습니다). 다음 타일의 복사를 커밋한 뒤 이 스레드의 가장 오래된 "
      "배치만 기다리세요. pipe.consumer_wait()(또는 cuda::pipeline_consumer_wait_prior<{one2}>)를 "
      "쓰면 됩니다. 그래야 이 타일을 계산하는 동안 다음 타일의 복사가 진행됩니다."),
    R("it reads a buffer after its wait but before a block barrier (in the PTX, a path in the tile "
      "loop goes from the cp.async.wait to an ld.shared through no bar.sync): after "
      "pipe.consumer_wait(), call __syncthreads() before Phase {p:d} reads x_s[stage], so that every "
      "thread's copies have landed.",
      "대기 뒤, 블록 배리어 앞에서 버퍼를 읽습니다(PTX의 타일 루프에 cp.async.wait에서 bar.sync를 "
      "거치지 않고 ld.shared에 이르는 경로가 있습니다). 모든 스레드의 복사가 도착해 있도록 "
      "pipe.consumer_wait() 뒤, {p}단계가 x_s[stage]를 읽기 전에 __syncthreads()를 호출하세요."),
    R("its copies in the tile loop are never committed before the wait (in the PTX, a path goes "
      "from a cp.async through the compute's shared loads to the next round's cp.async.wait "
      "through no cp.async.commit_group): "
      "pipe.producer_acquire(), issue_tile(...), then pipe.producer_commit(), so that "
      "pipe.consumer_wait() has a batch to wait for.",
      "타일 루프의 복사를 대기 전에 커밋하지 않습니다(PTX에 cp.async에서 계산의 공유 메모리 로드를 "
      "지나 다음 회차의 cp.async.wait까지, cp.async.commit_group을 거치지 않고 이르는 경로가 "
      "있습니다). pipe.producer_acquire(), "
      "issue_tile(...), pipe.producer_commit()을 차례로 호출하세요. 그래야 pipe.consumer_wait()가 "
      "기다릴 배치가 생깁니다."),
    R("a store to shared memory reaches a read of shared memory through an mbarrier wait, with "
      "no __syncthreads() and no arrival on that barrier between (in the PTX, a path goes from an "
      "st.shared through an mbarrier wait to an ld.shared through no bar.sync and no arrival "
      "that a wait names): the wait orders only what each thread wrote before it arrived, so another thread "
      "may read the store's old value. Store all that Phase 4 reads (the zeros (0.0f), the "
      "vector's edge values, the taps) before this thread arrives, let every thread that stores "
      "arrive after its stores, or call __syncthreads() between the last store and Phase 4's reads.",
      "공유 메모리에 저장한 값이 mbarrier 대기를 지나 공유 메모리 읽기에 이르는데, 그 사이에 "
      "__syncthreads()도 그 배리어에 대한 도착도 없습니다(PTX에 st.shared에서 mbarrier 대기를 지나, bar.sync도 대기가 가리키는 "
      "도착도 거치지 않고 ld.shared에 이르는 경로가 있습니다). 대기는 각 스레드가 도착하기 전에 쓴 "
      "값만 보장하므로, 다른 스레드가 저장 전의 옛값을 읽을 수 있습니다. 4단계가 읽는 것(0.0f인 칸, "
      "벡터 끝의 값, 탭)은 모두 이 스레드가 도착하기 전에 저장하거나, 저장하는 스레드가 모두 저장한 뒤에 "
      "도착하게 하거나, 마지막 저장과 4단계의 읽기 사이에 __syncthreads()를 호출하세요."),
    R("it commits more than one batch between two waits (in the PTX, a cp.async.commit_group "
      "reaches another through no cp.async.wait and no barrier, as a commit inside the copy loop "
      "does): commit once per tile, after all of its copies; otherwise pipe.consumer_wait() "
      "waits for each thread's oldest batch only and the tile's other copies are still in flight.",
      "두 대기 사이에 배치를 둘 이상 커밋합니다(PTX에서 cp.async.commit_group이 cp.async.wait도 "
      "배리어도 거치지 않고 다른 commit_group에 이릅니다. 복사 루프 안의 커밋이 그렇게 됩니다). "
      "타일마다 한 번, 그 타일의 복사를 모두 발행한 뒤에 커밋하세요. 그러지 않으면 "
      "pipe.consumer_wait()는 스레드마다 가장 오래된 배치만 기다리고, 타일의 나머지 복사는 아직 "
      "진행 중입니다."),
    R("some threads skip the loop's commit while others make it (in the PTX, a branch on "
      "a value that differs between the block's threads goes round the cp.async.commit_group "
      "to the next cp.async.wait_group 1): "
      "each thread counts its own batches, so a thread that committed nothing this round "
      "has its wait_prior<1> leave its newest batch in flight, the tile it is about to "
      "read. Commit in every thread every round, an empty batch where it has no copies "
      "(as the prologue does): pipe.producer_acquire(), issue_tile(...) under your "
      "condition, pipe.producer_commit() outside it.",
      "루프의 커밋을 어떤 스레드는 하고 어떤 스레드는 건너뜁니다(PTX에서 블록의 스레드마다 "
      "다를 수 있는 값에 따른 분기가 cp.async.commit_group을 돌아 다음 cp.async.wait_group "
      "1로 갑니다). 배치는 "
      "스레드마다 따로 세므로, 이번 라운드에 아무것도 커밋하지 않은 스레드의 wait_prior<1>은 "
      "가장 최근 배치, 곧 이제 읽을 타일을 진행 중인 채로 둡니다. 모든 스레드가 라운드마다 "
      "커밋하세요. 복사할 것이 없는 스레드는 빈 배치를 커밋합니다(프롤로그처럼). "
      "pipe.producer_acquire()를 하고, issue_tile(...)만 조건 안에 두고, "
      "pipe.producer_commit()은 조건 밖에서 부릅니다."),
    R("its PTX has {op:id}: a .relaxed mbarrier operation orders no memory (a wait must acquire "
      "what the arrivals release, an arrival release what was read or written before it); drop "
      ".relaxed (a wait's default is .acquire, an arrival's .release)",
      "PTX에 {op}가 있습니다. .relaxed mbarrier 연산은 메모리 순서를 보장하지 않습니다(대기는 "
      "도착이 내보낸(release) 것을 받아야(acquire) 하고, 도착은 그 전에 읽거나 쓴 것을 내보내야 "
      "합니다). .relaxed를 빼세요(대기의 기본값은 .acquire, 도착의 기본값은 .release입니다)."),
    R("built at tile={tile:d}, K={k:d}, {threads:d} threads, {stages:d} stages (the check builds it "
      "at several sizes, and each build must be the same kernel: a condition on the sizes is "
      "refused; static_assert what your code needs): {inner:any}",
      "tile={tile}, K={k}, 스레드 {threads}개, 스테이지 {stages}개로 빌드하면 다음 문제가 있습니다"
      "(검사는 커널을 여러 크기로 빌드하며, 모든 빌드가 같은 커널이어야 합니다. 크기에 따른 조건은 "
      "받아들이지 않습니다. 코드에 필요한 크기는 static_assert로 확인하세요). {inner}",
      inner=lambda v: MESSAGES(v)),
    R("built at tile={tile:d}, K={k:d}, {threads:d} threads (the check builds it at several sizes, "
      "and each build must be the same kernel: a condition on the sizes is refused; static_assert "
      "what your code needs): {inner:any}",
      "tile={tile}, K={k}, 스레드 {threads}개로 빌드하면 다음 문제가 있습니다(검사는 커널을 여러 "
      "크기로 빌드하며, 모든 빌드가 같은 커널이어야 합니다. 크기에 따른 조건은 받아들이지 "
      "않습니다. 코드에 필요한 크기는 static_assert로 확인하세요). {inner}",
      inner=lambda v: MESSAGES(v)),
    R("there is no block barrier between the compute's reads of a buffer and the copy that "
      "refills it (round the tile loop's PTX, a path goes from an ld.shared to a cp.async through "
      "no bar.sync {z:d}): after every thread has computed from a buffer and before the copy into "
      "it is issued, call __syncthreads() (at the end of the loop, or between the wait's barrier "
      "and the copy of the next tile), or a fast warp overwrites a tile that a slow warp is still "
      "reading.",
      "계산이 버퍼를 읽는 곳과 그 버퍼를 다시 채우는 복사 사이에 블록 배리어가 없습니다(타일 "
      "루프를 도는 PTX에 ld.shared에서 bar.sync {z}을 거치지 않고 cp.async로 가는 경로가 "
      "있습니다). 모든 스레드가 버퍼로 계산을 마친 뒤, 그 버퍼로 복사를 발행하기 전에 "
      "__syncthreads()를 호출하세요(루프 끝에서, 또는 대기의 배리어와 다음 타일의 복사 사이에서). "
      "그러지 않으면 빠른 워프가, 느린 워프가 아직 읽고 있는 타일을 덮어씁니다."),
    # the bulk copy (INIT, INIT_FENCE, INIT_SYNC, BULK_COPY, BULK_EXPECT, BULK_WAIT, BULK_READY,
    # BULK_REFILL)
    R("its barriers are never initialised (the PTX has no mbarrier.init): thread {t:d} calls "
      "init(&bar[s], CONV_THREADS) for every stage before any copy, then __syncthreads().",
      "배리어를 초기화하지 않습니다(PTX에 mbarrier.init이 없습니다). 어떤 복사보다도 먼저 스레드 "
      "{t}이 스테이지마다 init(&bar[s], CONV_THREADS)을 호출하고, 그다음 __syncthreads()를 "
      "호출해야 합니다."),
    R("the copy engine is never shown the initialised barriers (the PTX has no fence.proxy.async "
      "for shared memory; fence.proxy.async.global is for global memory): after init, thread {t:d} "
      "runs asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\").",
      "복사 엔진에 초기화된 배리어가 보이지 않습니다(PTX에 공유 메모리용 fence.proxy.async가 "
      "없습니다. fence.proxy.async.global은 전역 메모리용입니다). init 뒤에 스레드 {t}이 "
      "asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\")로 펜스를 실행해야 합니다."),
    R("the copy engine may not see the initialised barriers: thread {t:d}'s fence.proxy.async must "
      "come after init and before the first bulk copy, on every path of the PTX "
      "(fence.proxy.async.shared::cta: a .global fence is for global memory; the check does not "
      "follow which thread takes a branch, so put the fence in the init's own if (threadIdx.x == "
      "{t2:d}), right after the init).",
      "복사 엔진이 초기화된 배리어를 보지 못할 수 있습니다. 스레드 {t}의 fence.proxy.async는 PTX의 "
      "모든 경로에서 init 뒤, 첫 벌크 복사 앞에 와야 합니다(fence.proxy.async.shared::cta를 쓰세요. "
      ".global 펜스는 전역 메모리용입니다. 검사는 어느 스레드가 어느 분기로 가는지 따라가지 않으므로, "
      "펜스를 init과 같은 if (threadIdx.x == {t2}) 블록 안, init 바로 뒤에 두세요)."),
    R("the other threads may wait on the barriers before thread {t:d} has initialised them (the "
      "PTX has no block barrier after the init and before the first bulk copy): call "
      "__syncthreads() after the init and the fence.",
      "스레드 {t}이 배리어를 초기화하기 전에 다른 스레드가 그 배리어에서 기다릴 수 있습니다(PTX에서 "
      "init 뒤, 첫 벌크 복사 앞에 블록 배리어가 없습니다). init과 펜스 뒤에 "
      "__syncthreads()를 호출하세요."),
    R("it never synchronises the block in the tile loop: after every thread has computed from a "
      "stage's buffer and before thread {t:d} refills it, call __syncthreads(), or a fast thread's "
      "copy overwrites a tile that a slow warp is still reading.",
      "타일 루프 안에서 블록을 동기화하지 않습니다. 모든 스레드가 스테이지의 버퍼로 계산을 마친 뒤, "
      "스레드 {t}이 그 버퍼를 다시 채우기 전에 __syncthreads()를 호출하세요. 그러지 않으면 빠른 "
      "스레드의 복사가, 느린 워프가 아직 읽고 있는 타일을 덮어씁니다."),
    R("there is no block barrier between the compute's reads of a stage's buffer and the bulk copy "
      "that refills it (round the tile loop's PTX, a path goes from an ld.shared to a "
      "cp.async.bulk through no bar.sync {z:d}): after every thread has computed from the buffer "
      "and before thread {t:d} refills it, call __syncthreads(), or the copy overwrites a tile "
      "that a slow warp is still reading.",
      "계산이 스테이지의 버퍼를 읽는 곳과 그 버퍼를 다시 채우는 벌크 복사 사이에 블록 배리어가 "
      "없습니다(타일 루프를 도는 PTX에 ld.shared에서 bar.sync {z}을 거치지 않고 cp.async.bulk로 "
      "가는 경로가 있습니다). 모든 스레드가 그 버퍼로 계산을 마친 뒤, 스레드 {t}이 버퍼를 다시 "
      "채우기 전에 __syncthreads()를 호출하세요. 그러지 않으면 복사가, 느린 워프가 아직 읽고 있는 "
      "타일을 덮어씁니다."),
    R("it issues no bulk copy (the PTX has no cp.async.bulk): thread {t:d} calls "
      "cuda::memcpy_async(&buf[lo - start], &x[lo], cuda::aligned_size_t<{a:d}>(bytes), bar), a "
      "size in bytes that is a multiple of {b:d}.",
      "벌크 복사를 발행하지 않습니다(PTX에 cp.async.bulk가 없습니다). 스레드 {t}이 {b}의 배수인 "
      "바이트 크기로 cuda::memcpy_async(&buf[lo - start], &x[lo], "
      "cuda::aligned_size_t<{a}>(bytes), bar)를 호출해야 합니다."),
    R("it copies before its barriers are initialised: init every stage's barrier, then copy.",
      "배리어를 초기화하기 전에 복사합니다. 모든 스테이지의 배리어를 먼저 init하고 그다음 "
      "복사하세요."),
    R("its barrier is never told how many bytes to expect (the PTX has no mbarrier.expect_tx): "
      "issue the copy with cuda::memcpy_async(dst, src, cuda::aligned_size_t<{a:d}>(bytes), bar), "
      "which does both.",
      "배리어에 기다릴 바이트 수를 알려 주지 않습니다(PTX에 mbarrier.expect_tx가 없습니다). 복사를 "
      "cuda::memcpy_async(dst, src, cuda::aligned_size_t<{a}>(bytes), bar)로 발행하세요. 이 호출이 "
      "두 가지를 모두 합니다."),
    R("it never waits on the barrier (the PTX has no mbarrier.try_wait in a loop that retries it "
      "until the phase completes): every thread arrives and waits, "
      "bar[stage].wait(bar[stage].arrive()), before reading the buffer.",
      "배리어에서 기다리지 않습니다(PTX에 페이즈가 끝날 때까지 mbarrier.try_wait를 다시 시도하는 "
      "루프가 없습니다). 모든 스레드가 버퍼를 읽기 전에 bar[stage].wait(bar[stage].arrive())로 "
      "도착하고 기다려야 합니다."),
    R("it waits on the barrier only before any copy is issued: arrive and wait in the loop, before "
      "Phase {p:d} reads the buffer.",
      "복사를 발행하기 전에만 배리어에서 기다립니다. 루프 안에서, {p}단계가 버퍼를 읽기 전에 "
      "도착하고 기다리세요."),
    R("it reads a buffer before waiting on its barrier (in the PTX, a path from the kernel's entry "
      "reaches an ld.shared without an mbarrier.try_wait loop): every thread arrives and waits, "
      "bar[stage].wait(bar[stage].arrive()), on every path, before Phase {p:d} reads the buffer.",
      "버퍼의 배리어에서 기다리기 전에 버퍼를 읽습니다(PTX에 커널의 진입점에서 mbarrier.try_wait "
      "루프를 거치지 않고 ld.shared에 이르는 경로가 있습니다). 모든 스레드가 모든 경로에서, "
      "{p}단계가 버퍼를 읽기 전에 bar[stage].wait(bar[stage].arrive())로 도착하고 기다려야 "
      "합니다."),
    # the producer warp (WS_EMPTY_WAIT, WS_READY, WS_READ, WS_FULL_WAIT, WS_RELEASE)
    R("the producer refills a buffer without waiting for it to be empty (in the PTX, no "
      "mbarrier.try_wait loop follows a cp.async.bulk round the producer's loop): before fill(), "
      "mbar_wait(&empty[s], parity) for the phase of empty[s] that ends the previous round.",
      "프로듀서가 버퍼가 비기를 기다리지 않고 다시 채웁니다(PTX의 프로듀서 루프에서 cp.async.bulk "
      "뒤에 mbarrier.try_wait 루프가 오지 않습니다). fill() 전에 mbar_wait(&empty[s], parity)로, "
      "이전 회차를 끝내는 empty[s]의 페이즈를 기다리세요."),
    R("the compute warps read a buffer before waiting for its fill (in the PTX, a path from the "
      "kernel's entry reaches an ld.shared without an mbarrier.try_wait loop): before Phase {p:d} "
      "reads x_s[s], mbar_wait(&full[s], parity) for the round-th fill.",
      "계산 워프가 버퍼가 채워지기를 기다리기 전에 버퍼를 읽습니다(PTX에 커널의 진입점에서 "
      "mbarrier.try_wait 루프를 거치지 않고 ld.shared에 이르는 경로가 있습니다). {p}단계가 "
      "x_s[s]를 읽기 전에 mbar_wait(&full[s], parity)로 round번째 채우기를 기다리세요."),
    R("the compute never reads the tile from shared memory (the PTX has no ld.shared.v{v:d}): keep "
      "Phase {p:d} as the skeleton has it.",
      "계산이 공유 메모리에서 타일을 읽지 않습니다(PTX에 ld.shared.v{v}가 없습니다). {p}단계는 "
      "스켈레톤에 있는 그대로 두세요."),
    R("the compute warps never wait for a fill (in the PTX, no mbarrier.try_wait loop in the loop "
      "round the compute's shared loads): in the tile loop, before Phase {p:d} reads x_s[s], "
      "mbar_wait(&full[s], parity) for the round-th fill.",
      "계산 워프가 채우기를 기다리지 않습니다(PTX에서 계산의 공유 메모리 로드를 둘러싼 루프 안에 "
      "mbarrier.try_wait 루프가 없습니다). 타일 루프 안에서, {p}단계가 x_s[s]를 읽기 전에 "
      "mbar_wait(&full[s], parity)로 round번째 채우기를 기다리세요."),
    R("the compute warps wait for a fill outside the tile loop only (in the PTX, no "
      "mbarrier.try_wait loop in the loop round the compute's shared loads): wait for each tile's "
      "fill in the loop, before Phase {p:d} reads x_s[s].",
      "계산 워프가 타일 루프 바깥에서만 채우기를 기다립니다(PTX에서 계산의 공유 메모리 로드를 "
      "둘러싼 루프 안에 mbarrier.try_wait 루프가 없습니다). 루프 안에서, {p}단계가 x_s[s]를 읽기 "
      "전에 타일마다 채우기를 기다리세요."),
    R("the compute warps never hand a buffer back (in the PTX, no mbarrier.arrive follows the "
      "compute's ld.shared): after Phase {p:d} has read buffer s, fence the reads "
      "(fence.proxy.async.shared::cta) and mbar_arrive(&empty[s]), or the producer waits for ever "
      "once the ring wraps.",
      "계산 워프가 버퍼를 돌려주지 않습니다(PTX에서 계산의 ld.shared 뒤에 mbarrier.arrive가 오지 "
      "않습니다). {p}단계가 버퍼 s를 읽은 뒤 읽기에 펜스를 두고(fence.proxy.async.shared::cta) "
      "mbar_arrive(&empty[s])를 호출하세요. 그러지 않으면 링이 한 바퀴 돈 뒤 프로듀서가 끝없이 "
      "기다립니다."),
]
STEP = table(*STEP_MESSAGES)

REFUSED_BECAUSE = table(
    R("the kernel may include only " + ALLOWED, "커널이 포함할 수 있는 것은 " + ALLOWED_KO + "뿐입니다."),
    R("an exercise needs no #{name:id}", "연습 문제에는 #{name} 지시문이 필요 없습니다."),
    R("{name:id} belongs to the check's builds or the common header (the sizes, the stress build's "
      "PHASE() points and what they call stay as they are)",
      "{name} 이름은 검사의 빌드나 공통 헤더의 것입니다(크기, 스트레스 빌드의 PHASE() 지점, 그 "
      "지점이 호출하는 것은 그대로 두어야 합니다)."),
    R("every build the check makes must be the same kernel (a condition on the build's sizes or on "
      "the stress build would make the one the PTX is read from differ from the ones that run); "
      "to check the sizes, use static_assert",
      "검사가 만드는 빌드는 모두 같은 커널이어야 합니다. 빌드의 크기나 스트레스 빌드에 조건을 걸면 "
      "PTX를 읽는 빌드와 실행하는 빌드가 달라집니다. 크기를 확인하려면 static_assert를 쓰세요."),
    R("a kernel needs no #pragma but unroll and the like (nv_diag_suppress...)",
      "커널에는 unroll 같은 것(nv_diag_suppress...) 말고는 #pragma가 필요 없습니다."),
)

EXERCISES = "async_halo, double_buffer, bulk, warp_specialized"

MESSAGES = table(
    # a step's message, with the note on dead code that _check_structure adds
    R("{message} (The PTX lists {op:id}, but no path from the kernel's entry runs it: a branch "
      "jumps over it, or its predicate is always false.)",
      "{message} (PTX에 {op} 명령어가 있지만, 커널의 진입점에서 그 명령어를 실행하는 경로가 "
      "없습니다. 분기가 그 명령어를 건너뛰거나, 그 프레디케이트가 늘 거짓입니다.)", message=STEP),
    *STEP_MESSAGES,
    # 1. the text
    R("the answer is bytes that are not UTF-8 text (byte {b:d}); pass the kernel's source as a "
      "string",
      "답이 UTF-8 텍스트가 아닌 바이트입니다({b}번 바이트). 커널의 소스를 문자열로 넘기세요."),
    R("the answer must be the kernel's source as a string, got {got:any}",
      "답은 커널의 소스를 담은 문자열이어야 합니다. 받은 값: {got}"),
    R("line {n:d} holds a NUL character: retype that line",
      "{n}번 줄에 NUL 문자가 있습니다. 그 줄을 다시 입력하세요."),
    R("line {n:d} holds U+{u:id}, not a character (a lone surrogate): retype that line",
      "{n}번 줄에 문자가 아닌 U+{u} 값(짝 없는 서로게이트)이 있습니다. 그 줄을 다시 입력하세요."),
    R("the answer is {size:n} bytes, more than {k:d} KiB: an exercise's kernel fits in that",
      "답이 {size}바이트로 {k} KiB를 넘습니다. 연습 문제의 커널은 그 안에 들어갑니다."),
    R("line {n:d} still says FILL IN (replace the marker line with your code): {line:any}",
      "{n}번 줄에 FILL IN 표시가 남아 있습니다. 그 표시 줄을 여러분의 코드로 바꾸세요. "
      "해당 줄: {line}"),
    R("line {n:d} holds a trigraph (??=, ??/, ...): remove it",
      "{n}번 줄에 트라이그래프(??=, ??/, ...)가 있습니다. 지우세요."),
    R("line {n:d} holds a backslash followed by spaces at the end of the line: remove it",
      "{n}번 줄 끝에 백슬래시와 그 뒤의 공백이 있습니다. 지우세요."),
    R("line {n:d}: a raw string with a backslash at the end of a line: remove the backslash",
      "{n}번 줄: 줄 끝에 백슬래시가 있는 원시 문자열입니다. 그 백슬래시를 지우세요."),
    R("line {n:d}: a backslash outside a string or character literal: remove it",
      "{n}번 줄: 문자열이나 문자 리터럴 바깥에 백슬래시가 있습니다. 지우세요."),
    R("line {n:d}: a comment that spans lines inside a directive (after its #) is refused: keep "
      "each directive, its comments included, on one line",
      "{n}번 줄: 지시문 안(# 뒤)에서 여러 줄에 걸친 주석은 허용하지 않습니다. 지시문은 주석까지 "
      "포함해 한 줄에 쓰세요."),
    R("line {n:d}: {name:id} (the pipeline primitives of the toolkit's <cuda_pipeline.h>) is not "
      "offered here: " + NOT_OFFERED,
      "{n}번 줄: {name}(툴킷의 <cuda_pipeline.h>에 있는 파이프라인 프리미티브)는 여기서 쓸 수 "
      "없습니다. " + NOT_OFFERED_KO),
    R("line {n:d}: {name:id} is refused: the kernel may include only " + ALLOWED
      + ", with #include",
      "{n}번 줄: {name} 토큰은 허용하지 않습니다. 커널이 #include로 포함할 수 있는 것은 "
      + ALLOWED_KO + "뿐입니다."),
    R("line {n:d}: ## (token pasting) is refused in an exercise: write the names out",
      "{n}번 줄: 연습 문제에서는 ##(토큰 붙이기)를 허용하지 않습니다. 이름을 풀어 쓰세요."),
    R("line {n:d}: {shown} is not offered here: " + NOT_OFFERED,
      "{n}번 줄: {shown} 지시문이 포함하는 헤더는 여기서 쓸 수 없습니다. " + NOT_OFFERED_KO),
    R("line {n:d}: {shown} is refused: {why}",
      "{n}번 줄: {shown} 지시문은 허용하지 않습니다. {why}", why=REFUSED_BECAUSE),
    R("the skeleton's PHASE({p:d}) point is gone: leave every PHASE() line where the skeleton has "
      "it (the check's stress build waits there at random, to shake out races)",
      "스켈레톤의 PHASE({p}) 지점이 없어졌습니다. PHASE() 줄은 모두 스켈레톤에 있던 자리에 두세요"
      "(검사의 스트레스 빌드가 경쟁 상태를 드러내려고 그곳에서 무작위로 기다립니다)."),
    R("its stress build does not wait at all the skeleton's PHASE() points (under -DCONV_JITTER "
      "each of {points} compiles to a random wait; {found}): leave every PHASE() line where the "
      "skeleton has it, in code that runs, and the names of the common header as they are",
      "스트레스 빌드가 스켈레톤의 PHASE() 지점 가운데 일부에서 기다리지 않습니다. -DCONV_JITTER "
      "빌드에서는 {points}가 각각 무작위 대기로 컴파일되어야 하는데, {found}. PHASE() 줄은 모두 "
      "스켈레톤에 있던 자리, 실행되는 코드 안에 두고, 공통 헤더의 이름도 그대로 두세요.",
      points=lambda p: p if re.fullmatch(r"PHASE\(\d+\)(?:, PHASE\(\d+\))*", p) else None,
      found=JITTER_FOUND),
    # the exercise's name (kernels.validate.choice)
    R("exercise must be a string, one of " + EXERCISES + "; got {got:any}",
      "연습 문제 이름은 문자열이어야 합니다(" + EXERCISES + " 가운데 하나). 받은 값: {got}"),
    R("unknown exercise {value:any}: choose one of " + EXERCISES + "; did you mean {near:any}?",
      "알 수 없는 연습 문제입니다({value}). " + EXERCISES + " 가운데 하나를 고르세요. 혹시 "
      "{near}인가요?"),
    R("unknown exercise {value:any}: choose one of " + EXERCISES,
      "알 수 없는 연습 문제입니다({value}). " + EXERCISES + " 가운데 하나를 고르세요."),
    # 2. compiling
    R("the compiler failed (exit {code}): {last:any}",
      "컴파일러가 실패했습니다(종료 코드 {code}). 마지막 메시지: {last}"),
    R("it did not compile within {s:d} s: macros that expand to millions of tokens, templates "
      "nested too deep, or loops unrolled too far (#pragma unroll)?",
      "{s}초 안에 컴파일이 끝나지 않았습니다. 토큰 수백만 개로 펼쳐지는 매크로, 너무 깊이 중첩된 "
      "템플릿, 지나치게 많이 펼친 루프(#pragma unroll)가 있지 않나요?"),
    R("the compiler stopped without a word: try again",
      "컴파일러가 아무 메시지 없이 멈췄습니다. 다시 해 보세요."),
    R("it does not compile with tile={tile:d}, K={k:d}, {stages:d} stages: {diag:any}",
      "tile={tile}, K={k}, 스테이지 {stages}개 빌드가 컴파일되지 않습니다. 오류: {diag}",
      diag=DIAGNOSTIC),
    R("it does not compile with tile={tile:d}, K={k:d}: {diag:any}",
      "tile={tile}, K={k} 빌드가 컴파일되지 않습니다. 오류: {diag}", diag=DIAGNOSTIC),
    R("it does not compile: {diag:any}", "컴파일되지 않습니다. 오류: {diag}", diag=DIAGNOSTIC),
    # 3. the PTX
    R("its PTX is too large to check ({what}): an exercise's kernel is much shorter; take out what "
      "it does not need",
      "PTX가 너무 커서 검사할 수 없습니다({what}). 연습 문제의 커널은 훨씬 짧습니다. 필요 없는 "
      "부분을 빼세요.", what=TOO_LARGE),
    R("it calls a function through a pointer (in the PTX, a call through a register): the check "
      "follows the functions a kernel calls by name, and could not see what this one does; call "
      "it directly",
      "함수를 포인터로 호출합니다(PTX에서는 레지스터를 거친 call입니다). 검사는 커널이 이름으로 "
      "호출하는 함수만 따라가므로, 이 함수가 무엇을 하는지 볼 수 없었습니다. 함수를 직접 "
      "호출하세요."),
    R("the kernel lost its extern \"C\" (its name is mangled): " + KEEP,
      "커널에서 extern \"C\"가 빠졌습니다(이름이 맹글링되었습니다). " + KEEP_KO),
    R("the kernel is named {found:id}; the check launches {kernel:id}: " + KEEP,
      "커널 이름이 {found}입니다. 검사는 {kernel} 커널을 실행합니다. " + KEEP_KO),
    R("there is no __global__ kernel; the check launches {kernel:id}: " + KEEP,
      "__global__ 커널이 없습니다. 검사는 {kernel} 커널을 실행합니다. " + KEEP_KO),
    R("{name:id} must keep its parameters " + SIGNATURE,
      "{name} 커널의 매개변수는 " + SIGNATURE + " 그대로 두어야 합니다."),
    R("a loop that never ends: no path from its {op:id} reaches the end of the kernel (the loop "
      "around it has no way out)",
      "끝나지 않는 루프입니다. {op}에서 커널의 끝에 이르는 경로가 없습니다(그 명령어를 둘러싼 "
      "루프에서 빠져나갈 길이 없습니다)."),
    R("its {op:id} is in no loop: each block walks over its tiles (for (int tile = blockIdx.x; "
      "tile < tiles; tile += gridDim.x)) and waits for each tile's copies in that loop",
      "{op} 명령어가 어떤 루프 안에도 없습니다. 블록마다 자기 타일을 차례로 돌고(for (int tile = "
      "blockIdx.x; tile < tiles; tile += gridDim.x)), 그 루프 안에서 타일마다 복사를 기다려야 "
      "합니다."),
    # 4. the GPU
    R("it did not finish within {s:d} s on the GPU: a loop that never ends, a barrier that some "
      "threads never reach, or a bulk copy whose bytes never all arrive?",
      "GPU에서 {s}초 안에 끝나지 않았습니다. 끝나지 않는 루프, 일부 스레드가 끝내 도달하지 못하는 "
      "배리어, 바이트가 끝내 다 도착하지 않는 벌크 복사가 있지 않나요?"),
    R("the GPU run failed (exit {code}): {last:any}",
      "GPU 실행이 실패했습니다(종료 코드 {code}). 마지막 메시지: {last}"),
    R("it crashed on the GPU (n={n:d}, tile={tile:d}, K={k:d}): {error:any}",
      "GPU에서 비정상 종료했습니다(n={n}, tile={tile}, K={k}). 오류: {error}"),
    R("under the stress build (warps wait at random at the PHASE() points), launch {l:d} of "
      "{launches:d}, {found}. A race: a warp read a buffer before its copies had landed, or after "
      "it was refilled. {advice:any}",
      lambda v: (f"스트레스 빌드(워프가 PHASE() 지점에서 무작위로 기다립니다)의 런치 "
                 f"{v['launches']}번 가운데 {v['l']}번째, {v['found']} 경쟁 상태입니다. 워프가 "
                 f"복사가 도착하기 전의 버퍼나, 다시 채워진 뒤의 버퍼를 읽었습니다. "
                 f"{v['advice']}").strip(),
      found=WRONG, advice=ADVICE),
    R("under the stress build (warps wait at random at the PHASE() points), launch {l:d} of "
      "{launches:d}, {found}. A race: a warp read a buffer before its copies had landed, or after "
      "it was refilled.",
      "스트레스 빌드(워프가 PHASE() 지점에서 무작위로 기다립니다)의 런치 {launches}번 가운데 "
      "{l}번째, {found} 경쟁 상태입니다. 워프가 복사가 도착하기 전의 버퍼나, 다시 채워진 뒤의 "
      "버퍼를 읽었습니다.", found=WRONG),
    R("with its input in host memory (each copy takes microseconds to land), launch {l:d} of "
      "{launches:d}, {found}. A wait returned before the copies the compute reads had landed. "
      "{advice:any}",
      lambda v: (f"입력을 호스트 메모리에 둔 실행(복사 하나가 도착하는 데 수 마이크로초가 "
                 f"걸립니다)의 런치 {v['launches']}번 가운데 {v['l']}번째, {v['found']} 계산이 "
                 f"읽을 복사가 도착하기 전에 대기가 끝났습니다. {v['advice']}").strip(),
      found=WRONG, advice=ADVICE),
    R("{found}", "{found}", found=WRONG),
)

# NOT CHECKED: a fault of the check's own
CHECK_FAULT = table(
    R("the check itself failed ({error:any}); please report it.",
      "검사 자체가 실패했습니다({error}). 이 문제를 알려 주세요."),
)


# The verdict ----------------------------------------------------------------------------------

def clauses(body: str) -> list[str]:
    """``body`` split at each ``"; "`` outside parentheses and brackets."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(body):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
        elif c == ";" and depth == 0 and body.startswith("; ", i):
            out.append(body[start:i])
            start = i + 2
    return out + [body[start:]]


def _passed(body: str) -> str | None:
    """A PASSED or COMPILES, NOT RUN body (ending in "."): its clauses as Korean sentences."""
    if not body.endswith("."):
        return None
    said = [CLAUSES(c) for c in clauses(body[:-1])]
    return None if None in said else " ".join(said)


BODIES = {"PASSED: ": _passed, "COMPILES, NOT RUN: ": _passed, "NOT YET: ": MESSAGES,
          "NOT CHECKED: ": CHECK_FAULT}


def translate(verdict: str) -> str | None:
    """The verdict in Korean, or None where the table does not know it."""
    for en, ko in FRAMES:
        if verdict.startswith(en):
            body = verdict[len(en):]
            said = BODIES[en](body) if len(body) <= MAX_MATCHED else None
            return None if said is None else ko + said
    return None


def korean(verdict: str) -> str:
    """``verdict`` (a line of :func:`kernels.teach.exercise.report`) in Korean: the table's
    translation, or the Korean frame, :data:`FALLBACK_NOTE` and the English. Never raises."""
    try:
        if not isinstance(verdict, str):
            verdict = str(verdict)
        if not verdict.strip():
            return verdict
        said = translate(verdict)
        if said is not None:
            return said
        for en, ko in FRAMES:
            if verdict.startswith(en):
                return f"{ko}{FALLBACK_NOTE} {verdict[len(en):]}"
        return f"{FALLBACK_NOTE} {verdict}"
    except Exception:   # never: but a verdict must always be shown
        try:
            return f"{FALLBACK_NOTE} {verdict}"
        except Exception:
            return FALLBACK_NOTE
