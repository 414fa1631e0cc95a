#!/usr/bin/env python3
# docs/where.md answers with `file:function`: every file it names exists and defines that
# function (or table), so the page cannot silently point at what was renamed or moved.
import pathlib
import re
import sys

REFERENCE = re.compile(r"`((?:src|lib|tests|include)/[\w./-]+\.[ch]):(\w+)`")


def defines(text, name):
    """A definition at the start of a line: 'int name(', 'static void name(', 'T name[...] ='."""
    return re.search(rf"^[A-Za-z_][^;{{}}\n]*\b{re.escape(name)}\s*[(\[]", text, re.M) is not None


def problems_of(root, page):
    found, checked = [], 0
    for number, line in enumerate(page.read_text().splitlines(), 1):
        for path, name in REFERENCE.findall(line):
            checked += 1
            source = root / path
            if not source.is_file():
                found.append(f"{page}:{number}: {path} does not exist")
            elif not defines(source.read_text(errors="replace"), name):
                found.append(f"{page}:{number}: {path} defines no {name}")
    if checked == 0:
        found.append(f"{page}: names no `file:function` at all")
    return found, checked


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    page = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else root / "docs/where.md"
    found, checked = problems_of(root, page)
    for problem in found:
        print(problem)
    print(f"{checked} references checked, {len(found)} wrong")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
