"""compute-sanitizer's four tools report no error for any variant (GPU machines only)."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
TARGET = Path(__file__).with_name("sanitize_target.py")
SANITIZER = shutil.which("compute-sanitizer") or next(
    (p for p in ["/usr/local/cuda/bin/compute-sanitizer"] if os.path.exists(p)), None)


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer not found")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck", "initcheck"])
def test_sanitizer_reports_no_errors(tool):
    subprocess.run([sys.executable, str(TARGET)], check=True)   # fill the compile cache first
    out = subprocess.run([SANITIZER, "--tool", tool, "--error-exitcode", "99",
                          sys.executable, str(TARGET)], capture_output=True, text=True, timeout=900)
    log = out.stdout + out.stderr
    # memcheck, synccheck, initcheck: "ERROR SUMMARY: 0 errors";
    # racecheck: "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
    summary = re.findall(r"========= (?:ERROR SUMMARY: \d+ errors?|RACECHECK SUMMARY: .*)", log)
    print(f"{tool}: {summary[-1] if summary else 'no summary'}")
    assert out.returncode == 0, log[-4000:]
    assert "sanitize_target: ran every variant at 4 shapes" in log
    assert summary, log[-4000:]
    assert summary[-1] in ("========= ERROR SUMMARY: 0 errors",
                           "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"), \
        log[-4000:]
