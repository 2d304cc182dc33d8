"""The four exercises: where each is posed, its solution, and the configurations its GPU run
launches. Every check raises :class:`NotYet` with a message in both editions' languages."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ...compile import KERNEL_DIR
from ...edition import Text
from ...validate import choice


class NotYet(Exception):
    """The answer is not right yet; ``text`` says what, where, and what to do, in both
    languages."""

    def __init__(self, en: str, ko: str):
        super().__init__(en)
        self.text = Text(en, ko)


class Case(NamedTuple):
    """One configuration the GPU run launches: sizes, compile-time stages (None: the kernel
    has none) and blocks (None: one per tile)."""
    n: int
    tile: int
    k: int
    threads: int
    stages: int | None = None
    blocks: int | None = None

    def grid(self) -> int:
        return self.blocks or -(-self.n // self.tile)


@dataclass(frozen=True)
class Exercise:
    key: str
    kernel: str              # the extern "C" name the check launches
    solution: Path
    skeleton: Path
    arch: int                # the generation whose PTX the static checks read
    cases: tuple[Case, ...]  # each launched once, outputs poisoned with NaN
    stress: Case             # the stress build (warps wait at random at PHASE()), STRESS times
    host: Case | None = None     # x in pinned host memory: each copy takes microseconds to land
    run_arch: int = 0        # the oldest generation that can run it (0: any the book runs on)
    producer_warp: bool = False  # launched with one warp more than CONV_THREADS
    hint: Text = Text("", "")    # after wrong outputs under the stress build or from host memory


STRESS = 8        # launches of the stress build
HOST = 2          # launches with x in host memory
BIG = 2**24       # x and y twice a large L2: the copies come from DRAM and take their time
HOST_N = BIG - 224   # not a multiple of the tile: the last tile is short


EXERCISES = {ex.key: ex for ex in (
    Exercise(
        "async_halo", "conv1d_async_halo", KERNEL_DIR / "async_halo.cu",
        KERNEL_DIR / "exercises" / "async_halo_skeleton.cu", 80,
        # three builds: the puzzle's sizes (N = 16384, N not a multiple of the tile, one
        # partial tile), an even K with more outputs than threads, K as long as the tile
        (Case(16384, 256, 5, 256), Case(1000, 256, 5, 256), Case(77, 256, 5, 256),
         Case(4099, 64, 4, 32), Case(513, 32, 32, 32)),
        Case(BIG, 256, 5, 256),
        hint=Text("Does every thread wait for its copies (pipe.consumer_wait()) and then call "
                  "__syncthreads() before Phase 4 reads the tile?",
                  "4단계가 타일을 읽기 전에, 모든 스레드가 자기 복사를 기다리고"
                  "(pipe.consumer_wait()) 이어서 __syncthreads()를 호출하는지 보세요.")),
    Exercise(
        "double_buffer", "conv1d_double_buffer", KERNEL_DIR / "exercises" / "double_buffer.cu",
        KERNEL_DIR / "exercises" / "double_buffer_skeleton.cu", 80,
        # two builds; blocks walking over 4, 2, 1 and 5 tiles, and more blocks than tiles
        (Case(16384, 256, 5, 256, blocks=16), Case(1000, 256, 5, 256, blocks=2),
         Case(77, 256, 5, 256, blocks=1), Case(1000, 256, 5, 256, blocks=8),
         Case(4099, 64, 4, 32, blocks=13)),
        Case(BIG, 256, 5, 256, blocks=4096),   # 16 tiles per block
        # about 62 tiles per block: the host link is the bottleneck, so a tile's copies take a
        # round of the loop or more to land
        host=Case(HOST_N, 256, 5, 256, blocks=1056),
        hint=Text("At the wait, is this tile's batch complete? Commit one batch every round "
                  "(empty when there is no next tile) after issuing the next tile, wait for all "
                  "but the newest (pipe.consumer_wait() or wait_prior<1>), then __syncthreads(); "
                  "and call __syncthreads() again before a buffer is refilled.",
                  "대기 지점에서 이 타일의 배치가 다 도착해 있나요? 매 라운드, 다음 타일을 발행한 뒤 "
                  "배치를 하나 커밋하세요(다음 타일이 없으면 빈 배치). 그다음 가장 최근 배치만 빼고 "
                  "기다리고(pipe.consumer_wait() 또는 wait_prior<1>), __syncthreads()를 호출하세요. "
                  "버퍼를 다시 채우기 전에도 __syncthreads()를 한 번 더 호출하세요.")),
    Exercise(
        "bulk", "conv1d_bulk", KERNEL_DIR / "bulk.cu",
        KERNEL_DIR / "exercises" / "bulk_skeleton.cu", 90,
        # three builds (3, 4 and 1 stages): one block per tile and blocks walking over tiles
        # with several rounds per stage, ends that are not multiples of 4 floats, K = 1, K = 63
        (Case(16384, 256, 5, 256, stages=3), Case(16384, 256, 5, 256, stages=3, blocks=4),
         Case(1001, 256, 5, 256, stages=3, blocks=2), Case(77, 256, 5, 256, stages=3),
         Case(4099, 64, 1, 32, stages=4, blocks=5), Case(3000, 512, 63, 64, stages=1, blocks=2)),
        Case(BIG, 256, 5, 256, stages=3, blocks=1056),
        host=Case(HOST_N, 256, 5, 256, stages=3, blocks=1056),
        run_arch=90,
        hint=Text("Does every thread arrive on its stage's barrier, bar[stage], and wait for "
                  "this round's phase before reading the buffer?",
                  "모든 스레드가 자기 스테이지의 배리어 bar[stage]에 도착하고, 버퍼를 읽기 전에 이번 "
                  "라운드의 페이즈를 기다리는지 보세요.")),
    Exercise(
        "warp_specialized", "conv1d_warp_specialized", KERNEL_DIR / "warp_specialized.cu",
        KERNEL_DIR / "exercises" / "warp_specialized_skeleton.cu", 90,
        # three builds (3, 4 and 1 stages); every block walks over several tiles, so each
        # buffer is filled in several rounds; the vector's ends; K = 1 and K = 63
        (Case(16384, 256, 5, 256, stages=3, blocks=8), Case(1001, 256, 5, 256, stages=3, blocks=2),
         Case(77, 256, 5, 256, stages=3, blocks=1), Case(4099, 64, 1, 32, stages=4, blocks=5),
         Case(3000, 512, 63, 64, stages=1, blocks=2), Case(16384, 512, 63, 64, stages=1, blocks=16)),
        Case(BIG, 256, 5, 256, stages=3, blocks=1056),
        host=Case(HOST_N, 256, 5, 256, stages=3, blocks=924),
        run_arch=90, producer_warp=True,
        hint=Text("Does the compute wait on full[s] with the parity of the fill it reads "
                  "(round & 1), and the producer on empty[s] with the parity of the release it "
                  "needs ((round - 1) & 1, from round 1 on)?",
                  "계산 워프가 자기가 읽을 채움의 패리티(round & 1)로 full[s]를 기다리는지 보세요. "
                  "프로듀서가 필요한 반납의 패리티(라운드 1부터 (round - 1) & 1)로 empty[s]를 "
                  "기다리는지도 보세요.")),
)}


def get(name: str) -> Exercise:
    return EXERCISES[choice("name", name, EXERCISES)]


def skeleton(name: str = "async_halo") -> str:
    """The exercise as the notebook poses it, with its ``// FILL IN`` lines."""
    return get(name).skeleton.read_text()


def solution(name: str = "async_halo") -> str:
    """The book's answer to the exercise."""
    return get(name).solution.read_text()
