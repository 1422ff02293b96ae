"""Every fenced shell block of README.md runs and exits 0 (a README that cannot go stale).

Blocks marked ```sh (or bash, shell) run in order, each in a fresh `bash -e -o pipefail`
in the repository root, so later blocks see the files earlier ones wrote (out/, build/).
The suite cannot run itself inside itself: a line that runs the test suite
(`scripts/test.sh`, `ctest ...`) runs everything `scripts/test.sh` does before the tests
(package check, configure, build) and then lists the tests (`ctest -N`) instead of running
them; the substitution is printed. A block that fails is retried once (the ParaView render
under Xvfb can lose its X server at start-up), then the test fails with its output.
usage: test_readme.py SRC_DIR
"""
import os
import re
import subprocess
import sys


def blocks(text):
    out, cur, lang = [], None, None
    for line in text.splitlines():
        m = re.match(r"^```(\w*)\s*$", line)
        if m and cur is None:
            cur, lang = [], m.group(1)
        elif line.startswith("```") and cur is not None:
            if lang in ("sh", "bash", "shell"):
                out.append("\n".join(cur))
            cur = None
        elif cur is not None:
            cur.append(line)
    return out


def no_recursion(block):
    lines = []
    for line in block.split("\n"):
        s = line.strip()
        if s.startswith("scripts/test.sh"):
            line = ("source scripts/deps.sh && fmb_install_deps && fmb_build && "
                    "ctest --test-dir \"$FMB_BUILD\" -N  # was: " + s)
        elif s.startswith("ctest "):
            line = line + " -N  # listed, not run"
        lines.append(line)
    return "\n".join(lines)


def main():
    src = os.path.abspath(sys.argv[1])
    with open(os.path.join(src, "README.md"), encoding="utf-8") as f:
        bl = blocks(f.read())
    print("README.md: %d shell blocks" % len(bl))
    failures = 0
    env = dict(os.environ, FMB_README_TEST="1")
    for k, b in enumerate(bl, 1):
        script = no_recursion(b)
        print("--- block %d:\n%s" % (k, script))
        for attempt in (1, 2):
            p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=src, env=env,
                               capture_output=True, text=True, timeout=900)
            if p.returncode == 0:
                break
            print("attempt %d: exit %d\n%s%s" % (attempt, p.returncode, p.stdout[-3000:],
                                                 p.stderr[-3000:]))
        ok = p.returncode == 0
        print(("ok:   " if ok else "FAIL: ") + "block %d exits %d" % (k, p.returncode))
        failures += not ok
    check_count = len(bl) >= 5
    print(("ok:   " if check_count else "FAIL: ") + "at least 5 shell blocks found")
    failures += not check_count
    print("FAILED" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
