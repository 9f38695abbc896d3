#!/usr/bin/env python3
"""Core's layers, checked on its includes (ctest: core_layers).

core/ is a stack of folders, each a library linking only those below it (core/CMakeLists.txt):
    util -> model -> cost -> profile -> rules -> advisor -> optimize | report | whatif
A file may include headers of its own folder and of folders below it. An include that runs back
up, or across folders of one level, is a violation: it is how two folders grow into a cycle.
Generic helpers (util/, *_util.*) include no Ascend-specific header.

    check_layers.py CORE_DIR      # exit 1 and one line per violation
    check_layers.py --self-test   # the checker catches what it must (a test of the test)
"""
import os
import re
import sys
import tempfile

LEVELS = {"util": 0, "model": 1, "cost": 2, "profile": 3, "rules": 4, "advisor": 5,
          "optimize": 6, "report": 6, "whatif": 7}
# Headers about one device family: a generic helper must not need them.
ASCEND_HEADERS = re.compile(r"^(rules/ge_\w+|rules/ascend_\w+|rules/format_ascend|rules/kernel_ascend|"
                            r"profile/msprof_\w+|profile/ascend_\w+|profile/acl_\w+|profile/atc)\.h$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([A-Za-z0-9_./]+)"', re.M)


def violations(core):
    out = []
    for folder in sorted(os.listdir(core)):
        top = os.path.join(core, folder)
        if not os.path.isdir(top):
            continue
        if folder not in LEVELS:
            out.append(f"{folder}/: a folder of core that is no layer (add it to LEVELS and core/CMakeLists.txt)")
            continue
        for root, _, files in os.walk(top):
            for name in sorted(files):
                if not name.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(root, name)
                rel = os.path.relpath(path, core)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                generic = folder == "util" or re.search(r"_util\.(h|cpp)$", name)
                for target, header in INCLUDE.findall(text):
                    if generic and ASCEND_HEADERS.match(f"{target}/{header}"):
                        out.append(f"{rel}: a generic helper includes the Ascend-specific {target}/{header}")
                    if target not in LEVELS or target == folder:
                        continue
                    if LEVELS[target] >= LEVELS[folder]:
                        way = "back up" if LEVELS[target] > LEVELS[folder] else "across one level"
                        out.append(f"{rel}: includes {target}/{header}: runs {way} ({folder} is below {target})"
                                   if way == "back up" else f"{rel}: includes {target}/{header}: runs {way}")
    return out


def self_test():
    with tempfile.TemporaryDirectory() as d:
        def write(rel, text):
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w") as f:
                f.write(text)
        write("util/a.h", '#include "util/b.h"\n')
        write("model/m.cpp", '#include "util/a.h"\n')
        assert violations(d) == [], violations(d)
        write("cost/c.cpp", '#include "profile/p.h"\n')
        write("report/r.cpp", '#include "optimize/o.h"\n')
        write("rules/rule_util.cpp", '#include "rules/ge_fusion.h"\n')
        got = violations(d)
        assert any("cost/c.cpp" in v and "back up" in v for v in got), got
        assert any("report/r.cpp" in v and "across" in v for v in got), got
        assert any("rule_util.cpp" in v and "Ascend" in v for v in got), got
        write("stray/x.h", "")
        assert any(v.startswith("stray/") for v in violations(d))
    print("check_layers self-test: ok")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    found = violations(argv[1])
    for v in found:
        print(v)
    print(f"core layers: {len(found)} violation(s)" if found else "core layers: ok")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
