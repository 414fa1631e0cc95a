#!/usr/bin/env python3
# The layering rule, enforced: every #include "LAYER/..." in src/ must name the file's own
# layer or one below it (the table below, docs/architecture.md); lib/ includes nothing of src.
import pathlib
import re
import sys

# Each layer and the layers it may include. Siblings (targets, lab) do not see each other:
# the engine runs any target through core/target.h; the command line composes both.
ALLOWED = {
    "common": set(),
    "stats": {"common"},
    "env": {"common"},
    "store": {"common"},
    "core": {"common", "stats", "env"},
    "build": {"common", "env", "core"},
    "pg": {"common", "stats", "env"},
    "report": {"common", "stats", "core"},
    "targets": {"common", "stats", "env", "core", "build", "pg", "verdict"},
    "lab": {"common", "stats", "env", "store", "core", "build", "report"},
    "cli": {"common", "stats", "env", "store", "core", "build", "pg", "report", "targets", "lab"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def violations(root):
    found = []
    src = root / "src"
    layers = {p.name for p in src.iterdir() if p.is_dir()}
    for layer in sorted(layers - ALLOWED.keys()):
        found.append(f"src/{layer}: a layer the table does not know; add it to {__file__}")
    for path in sorted(src.glob("*/*.[ch]")):
        layer = path.parent.name
        for match in INCLUDE.finditer(path.read_text(errors="replace")):
            target = match.group(1)
            if "/" not in target:
                continue  # the same folder, or version.h
            used = target.split("/", 1)[0]
            if used != layer and used not in ALLOWED.get(layer, set()):
                line = path.read_text(errors="replace")[: match.start()].count("\n") + 1
                found.append(f"{path.relative_to(root)}:{line}: the {layer} layer includes "
                             f"\"{target}\" from the {used} layer, which it may not use")
    for path in sorted((root / "lib").glob("**/*.[ch]")):
        for match in INCLUDE.finditer(path.read_text(errors="replace")):
            if match.group(1).split("/", 1)[0] in ALLOWED:
                found.append(f"{path.relative_to(root)}: lib/ includes \"{match.group(1)}\" "
                             "from src/")
    return found


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    found = violations(root)
    for problem in found:
        print(problem)
    checked = len(list((root / "src").glob("*/*.[ch]")))
    print(f"{checked} files checked, {len(found)} layering violations")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
