"""compute-sanitizer's four tools report no error for any variant (GPU machines only).

One test per tool and variant, each under the suite's limit for a GPU test: a variant that
deadlocks under a tool ends its own test (the child's limit, SANITIZER_LIMIT_S), not the run."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernels import variants as V

pytestmark = pytest.mark.gpu
SANITIZER_LIMIT_S = 100   # one tool on one variant; conftest.GPU_TEST_TIMEOUT_S bounds the test
TARGET = Path(__file__).with_name("sanitize_target.py")
SANITIZER = shutil.which("compute-sanitizer") or next(
    (p for p in ["/usr/local/cuda/bin/compute-sanitizer"] if os.path.exists(p)), None)


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer not found")
@pytest.mark.parametrize("variant", V.NAMES)
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck", "initcheck"])
def test_sanitizer_reports_no_errors(tool, variant):
    from kernels.device import target_arch
    if V.get(variant).min_arch > target_arch():
        pytest.skip(f"{variant} needs sm_{V.get(variant).min_arch}")
    subprocess.run([sys.executable, str(TARGET), variant], check=True,
                   timeout=SANITIZER_LIMIT_S)   # fill the compile cache first
    out = subprocess.run([SANITIZER, "--tool", tool, "--error-exitcode", "99",
                          sys.executable, str(TARGET), variant], capture_output=True, text=True,
                         timeout=SANITIZER_LIMIT_S)
    log = out.stdout + out.stderr
    # memcheck, synccheck, initcheck: "ERROR SUMMARY: 0 errors";
    # racecheck: "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
    summary = re.findall(r"========= (?:ERROR SUMMARY: \d+ errors?|RACECHECK SUMMARY: .*)", log)
    print(f"{tool} {variant}: {summary[-1] if summary else 'no summary'}")
    assert out.returncode == 0, log[-4000:]
    assert f"sanitize_target: ran {variant} at 4 shapes" in log
    assert summary, log[-4000:]
    assert summary[-1] in ("========= ERROR SUMMARY: 0 errors",
                           "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"), \
        log[-4000:]
