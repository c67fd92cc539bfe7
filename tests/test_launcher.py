"""The demo's launcher: one stop (or one Ctrl-C) leaves no process behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.launcher import Launcher

ROOT = Path(__file__).resolve().parents[1]

# A child that starts a grandchild and then sleeps: both must go when the group is stopped.
PARENT_OF_SLEEPER = (
    "import subprocess, sys, time, pathlib\n"
    "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    "pathlib.Path(sys.argv[1]).write_text(str(p.pid))\n"
    "time.sleep(60)\n"
)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purposes; /proc tells.
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()
    except FileNotFoundError:
        return False


def wait_gone(pids: list[int], timeout: float = 5.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


def test_stop_ends_children_and_their_children(tmp_path: Path) -> None:
    launcher = Launcher(tmp_path)
    marker = tmp_path / "grandchild.pid"
    a = launcher.start("parent", [sys.executable, "-c", PARENT_OF_SLEEPER, str(marker)],
                       ready=marker.exists)
    b = launcher.start("stubborn", [sys.executable, "-c",
                                    "import signal, time; signal.signal(signal.SIGTERM, "
                                    "signal.SIG_IGN); time.sleep(60)"])
    grandchild = int(marker.read_text())
    pids = [a.process.pid, b.process.pid, grandchild]
    assert all(alive(p) for p in pids)
    started = time.monotonic()
    launcher.stop(grace=0.5)
    assert wait_gone(pids) == []
    assert time.monotonic() - started < 5


def test_a_child_that_fails_to_start_is_reported(tmp_path: Path) -> None:
    launcher = Launcher(tmp_path)
    with pytest.raises(RuntimeError, match="broken exited with status 3; see .*broken.log"):
        launcher.start("broken", [sys.executable, "-c", "import sys; sys.exit(3)"],
                       ready=lambda: False)
    launcher.stop()


@pytest.mark.parametrize("sig, early, background", [
    (signal.SIGINT, False, False), (signal.SIGTERM, False, False), (signal.SIGINT, True, False),
    (signal.SIGINT, False, True), (signal.SIGINT, True, True)])
def test_ctrl_c_or_sigterm_on_the_launcher_stops_everything(tmp_path: Path, sig: int,
                                                           early: bool, background: bool) -> None:
    # early: the signal comes while children are still being started. background: started
    # with SIGINT ignored, as a shell starts a job with `&` (and as the test runner itself
    # may have been started), which Python keeps unless told otherwise.
    script = (
        "import sys, time, pathlib\n"
        "from companion.launcher import Launcher\n"
        "with Launcher(pathlib.Path(sys.argv[1])) as l:\n"
        "    for n in range(3):\n"
        "        c = l.start(f's{n}', [sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "        print(c.process.pid, flush=True)\n"
        "        time.sleep(0.3 if sys.argv[2] == 'early' else 0)\n"
        "    print('waiting', flush=True)\n"
        "    print(l.wait(), flush=True)\n"
    )
    disposition = signal.SIG_IGN if background else signal.SIG_DFL
    proc = subprocess.Popen([sys.executable, "-c", script, str(tmp_path),
                             "early" if early else "late"], cwd=ROOT, stdout=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, disposition))
    assert proc.stdout is not None
    pids = [int(proc.stdout.readline())]
    if not early:
        pids += [int(proc.stdout.readline()) for _ in range(2)]
        assert proc.stdout.readline().strip() == "waiting"
        time.sleep(0.2)  # inside wait()
    proc.send_signal(sig)
    rest = proc.stdout.read()
    proc.wait(10)
    if not early:
        assert rest.strip() == "stop requested" and proc.returncode == 0
    pids += [int(line) for line in rest.split() if line.isdigit()]
    assert wait_gone(pids) == []


def test_children_die_with_a_killed_launcher(tmp_path: Path) -> None:
    script = (
        "import sys, time, pathlib\n"
        "from companion.launcher import Launcher\n"
        "l = Launcher(pathlib.Path(sys.argv[1]))\n"
        "c = l.start('sleeper', [sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print(c.process.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None
    pid = int(proc.stdout.readline())
    proc.kill()
    proc.wait()
    assert wait_gone([pid]) == []
