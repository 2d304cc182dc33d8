"""The answer as text, before anything compiles: text, not too long, no FILL IN left, no
``#include`` but the common header and CUDA's own, every ``PHASE()`` point of the skeleton kept."""

from __future__ import annotations

import re

from .exercises import Exercise, NotYet

MAX_BYTES = 64 * 1024
HEADER = "conv1d_common.cuh"
MARKER = re.compile(r"^[ \t]*// FILL IN.*$", re.M)
INCLUDE = re.compile(r"^[ \t]*#[ \t]*include\b[ \t]*(.*?)[ \t]*(?://.*)?$", re.M)   # a comment may follow
# "conv1d_common.cuh", or a header of CUDA's own by a relative name (<cuda/pipeline>)
ALLOWED = re.compile(rf'"{re.escape(HEADER)}"|<(?!/)(?!.*\.\.)[\w./+-]+>')
PHASE = re.compile(r"\bPHASE\s*\(\s*(\d+)\s*\)")
COMMENT = re.compile(r"//[^\n]*")


def quote(line: str, limit: int = 40, name: str = "") -> str:
    """A line as a verdict quotes it: whole, or cut at a word (or after a ``::``, ``(``, ``,``
    or ``.`` when its first words are one long name), with "…" (short enough for a phone's
    line: the verdict gives its number); from the word that holds ``name``, if the cut would
    hide it (the name a compile error names)."""
    line = line.strip()
    if name and name in line and name not in quote(line, limit):
        return "… " + quote(line[line.rfind(" ", 0, line.find(name)) + 1:], limit)
    if len(line) <= limit:
        return line
    head = line[:limit + 1]
    if " " not in head:
        long = re.match(r".*(::|[(,.])", head)
        head = long[0] if long else head[:limit]
    return head.rsplit(" ", 1)[0] + " …"


def shown(line: str, name: str = "") -> str:
    """A line of code as a verdict shows it: quoted, on a line of its own and indented (the
    verdict is printed text, where no markup would show)."""
    return f"\n    {quote(line, name=name)}\n" if line.strip() else " "


def line_of(src: str, pos: int) -> int:
    return src.count("\n", 0, pos) + 1


def read(src) -> str:
    """The answer as the compiler gets it: a string (bytes as UTF-8), no byte-order mark, lines
    ending in a bare newline, at most :data:`MAX_BYTES`."""
    if isinstance(src, (bytes, bytearray)):
        try:
            src = bytes(src).decode("utf-8")
        except UnicodeDecodeError:
            raise NotYet("the answer is bytes that are not UTF-8 text. Pass the kernel's source "
                         "as a string.",
                         "답이 UTF-8 텍스트가 아닌 바이트입니다. 커널의 소스를 문자열로 넘기세요.") from None
    if not isinstance(src, str):
        raise NotYet(f"the answer must be the kernel's source as a string, not "
                     f"{type(src).__name__}.",
                     f"답은 커널의 소스를 담은 문자열이어야 합니다. 받은 것은 "
                     f"{type(src).__name__}입니다.")
    src = src.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if "\0" in src:
        line = line_of(src, src.index("\0"))
        raise NotYet(f"line {line} holds a NUL character. Retype that line.",
                     f"{line}번째 줄에 NUL 문자가 있습니다. 그 줄을 다시 입력하세요.")
    size = len(src.encode("utf-8", "replace"))
    if size > MAX_BYTES:
        raise NotYet(f"the answer is {size:,} bytes, more than {MAX_BYTES // 1024} KiB. An "
                     "exercise's kernel fits in far less.",
                     f"답이 {size:,}바이트로 {MAX_BYTES // 1024} KiB를 넘습니다. 연습 문제의 커널은 "
                     "그보다 훨씬 작습니다.")
    return src


def check(src: str, ex: Exercise) -> None:
    """What is wrong with the text whatever it compiles to."""
    if marker := MARKER.search(src):
        line, text = line_of(src, marker.start()), marker[0]
        after = src[marker.end() + 1:].split("\n", 1)[0].strip()
        if after.startswith("//") and not MARKER.match(after):   # the comment goes on
            text += " …"
        raise NotYet(f"a FILL IN is left, line {line}:{shown(text)}Replace that line with your "
                     "code.",
                     f"{line}번째 줄에 FILL IN이 남아 있습니다:{shown(text)}이 줄을 여러분의 "
                     "코드로 바꾸세요.")
    for include in INCLUDE.finditer(src):
        if not ALLOWED.fullmatch(include[1]):
            line = line_of(src, include.start())
            raise NotYet(f"an #include the check does not offer, line {line}:"
                         f"{shown(include[0])}Include only \"{HEADER}\" and CUDA's own "
                         "headers, such as <cuda/pipeline> and <cuda/barrier>.",
                         f"{line}번째 줄의 #include는 검사 환경에서 쓸 수 없습니다:"
                         f"{shown(include[0])}\"{HEADER}\"와 <cuda/pipeline>, "
                         "<cuda/barrier> 같은 CUDA 자체 헤더만 포함하세요.")
    def phases(text):   # the PHASE(p) lines, not a comment's mention of one
        return {int(p) for p in PHASE.findall(COMMENT.sub("", text))}
    if gone := sorted(phases(ex.skeleton.read_text()) - phases(src)):
        raise NotYet(f"the skeleton's PHASE({gone[0]}) line is gone. Put it back where the "
                     "skeleton has it: the stress build makes warps wait there at random.",
                     f"스켈레톤의 PHASE({gone[0]}) 줄이 없어졌습니다. 스켈레톤에 있던 자리에 다시 "
                     "넣으세요. 스트레스 빌드가 거기서 워프를 무작위로 기다리게 합니다.")
