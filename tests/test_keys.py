"""`flexmb keys`: the case keys printed from the class tables agree with what
docs/case-format.md states for them (independent text written by hand), every documented
joint and force type is listed, and an unknown type or section is a usage error (exit 1).
usage: test_keys.py FLEXMB_CLI DOCS/case-format.md"""
import re
import subprocess
import sys

cli, docs = sys.argv[1], open(sys.argv[2]).read()
fails = 0


def run(*args):
    return subprocess.run([cli, "keys", *args], capture_output=True, text=True)


def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    fails += not cond


def keys(section, typ):
    p = run(section, typ)
    check(p.returncode == 0, f"keys {section} {typ}: exit 0")
    return {l.split("\t")[0]: l.split("\t") for l in p.stdout.splitlines()}


# types: the documented rows "| `type` |" of the joints and forces tables
for section, head in (("joints", "## joints"), ("forces", "## forces")):
    listed = run(section).stdout.split()
    part = docs[docs.index(head):]
    part = part[: part.index("\n## ", 4)]
    part = part.split("\n### ")[0]  # the type table, not the friction keys below it
    documented = re.findall(r"^\| `(\w+)` \|", part, re.M)
    for t in documented:
        check(t in listed, f"{section}: documented type {t} is listed")

# values the docs state by hand
k = keys("forces", "spring")
check(k["stiffness"][2:5] == ["N/m", "required", ">= 0"], "spring stiffness: N/m, required, >= 0")
check(k["damping"][3] == "default 0", "spring damping: default 0")
check(k["rest_length"][3] == "default derived", "spring rest_length: derived (initial distance)")
k = keys("friction", "lugre")
check(float(k["sigma0"][3].split()[1]) == 1.3e6, "lugre sigma0: default 1.3e6 (seed 000)")
check(float(k["vs"][3].split()[1]) == 0.0009, "lugre vs: default 0.0009")
check(k["a"][3:5] == ["required", "> 0"], "friction a: required, > 0")
k = keys("joints", "driver")
check(k["coordinate"][4] == "one of angle | x | y", "driver coordinate: angle | x | y")
check(k["function"][3] == "required", "driver function: required")
k = keys("forces", "clearance")
check("lankarani_nikravesh" in k["law"][4] and "wang2016" in k["law"][4], "clearance laws")
check(k["poisson"][4] == ">= 0, < 0.5", "clearance poisson: [0, 0.5)")
check("clearance" in run("joints").stdout.split(), "clearance is also a joints: type")

p = run("joints", "hinge")
check(p.returncode == 1 and "no type 'hinge'" in p.stderr, "unknown type: exit 1, message")
p = run("bodies")
check(p.returncode == 1 and "unknown section" in p.stderr, "unknown section: exit 1")
print("FAILED" if fails else "all passed")
sys.exit(1 if fails else 0)
