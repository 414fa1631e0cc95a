#!/usr/bin/env python3
# The table of error kinds in docs/architecture.md says what src/common/error.c's table does:
# the same kinds, each with the same exit status, none missing on either side.
import pathlib
import re
import sys

CODE_ROW = re.compile(r'\[(ERROR_\w+)\]\s*=\s*\{\s*"[^"]*",\s*(\d+)\s*\}')
DOC_ROW = re.compile(r"^\|\s*`(ERROR_\w+)`\s*\|\s*(\d+)\s*\|", re.M)


def problems_of(code_text, doc_text, doc_name):
    code = {kind: int(status) for kind, status in CODE_ROW.findall(code_text)}
    doc = {kind: int(status) for kind, status in DOC_ROW.findall(doc_text)}
    code.pop("ERROR_NONE", None)  # success: not a row of the page's table
    found = []
    if not code:
        found.append("src/common/error.c: no table of kinds found")
    for kind, status in sorted(code.items()):
        if kind not in doc:
            found.append(f"{doc_name}: the table of kinds lacks {kind} (exit {status})")
        elif doc[kind] != status:
            found.append(f"{doc_name}: {kind} exits {doc[kind]}, src/common/error.c says {status}")
    for kind in sorted(set(doc) - set(code)):
        found.append(f"{doc_name}: {kind} is no kind of src/common/error.c")
    return found


def main(argv):
    root = pathlib.Path(argv[1])
    doc_path = pathlib.Path(argv[2]) if len(argv) > 2 else root / "docs" / "architecture.md"
    code_text = (root / "src" / "common" / "error.c").read_text()
    found = problems_of(code_text, doc_path.read_text(), str(doc_path))
    for line in found:
        print(line)
    print(f"error kinds: {len(found)} differences")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
