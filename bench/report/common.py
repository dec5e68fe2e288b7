"""What the report (bench/report) and the matrix (bench/matrix) both say of a
run: the files and commands machine facts come from, the CPU model, the load
average, the git commit, and a ratio as text. Standard library only; nothing
here runs a benchmark.
"""
import os
import subprocess


def read_text(path, default=""):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def command_output(cmd, cwd=None):
    """cmd's stdout, stripped; "" when it fails or cannot run."""
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=30)
        return p.stdout.strip() if p.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def cpu_model(fallback):
    """The CPU's model name from /proc/cpuinfo; fallback where it names none."""
    return next((line.split(":", 1)[1].strip() for line in read_text("/proc/cpuinfo").splitlines()
                 if line.startswith("model name")), fallback)


def loadavg():
    """The 1, 5 and 15 minute load averages, rounded; None where unknown."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def loadavg_words():
    """The load averages as /proc/loadavg writes them; [] where unknown."""
    return read_text("/proc/loadavg").split()[:3]


def git_state(root):
    """(HEAD's commit, whether tracked files differ from it) of the checkout
    at root; ("", False) outside one."""
    commit = command_output(["git", "rev-parse", "HEAD"], cwd=root)
    dirty = command_output(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root)
    return commit, bool(dirty)


def times(r, whole_from=10):
    """A ratio as text: '0.83x', whole from whole_from up ('12x'); '-' for None."""
    if r is None:
        return "-"
    return f"{r:.0f}x" if r >= whole_from else f"{r:.2f}x"
