#!/usr/bin/env python3
# The copies of the layer table agree with check_layers.py's: docs/architecture.md's Layers
# table, docs/development.md's Layout table, and the order top-level meson.build builds in.
import argparse
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from check_layers import ALLOWED  # noqa: E402  (the one table; this file only compares)

# How a table names what is not a folder of src/: the public kernel ABI is the "verdict"
# include prefix; "libc", "nothing" and "everything" are words for the empty and the full set.
ALIASES = {"include/verdict": "verdict"}
NONE_WORDS = {"libc", "nothing", "—", "-", ""}


def table_rows(text, heading):
    """The rows (lists of cells) of the first table under the '## heading' section."""
    section = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if section is None:
        return None
    rows = []
    for line in section.group(1).splitlines():
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if all(re.fullmatch(r":?-+:?", cell) for cell in cells):
            continue
        rows.append(cells)
    return rows[1:]  # the header row says what the columns are


def layer_of(cell):
    """'`src/lab/`' or '`lab/`' -> 'lab'; None for a row that is not a folder of src/."""
    name = cell.strip("`").rstrip("/")
    name = name[len("src/"):] if name.startswith("src/") else name
    return name if "/" not in name and name in ALLOWED else None


def uses_of(cell, layer):
    """The layers a 'may use' cell names; libraries and remarks in parentheses are not layers."""
    cell = re.sub(r"\([^)]*\)", "", cell)
    words = {word.strip().strip("`").rstrip("/") for word in cell.split(",")}
    if "everything" in words:
        return {name for name in ALLOWED if name != layer}
    used = set()
    for word in words - NONE_WORDS:
        word = ALIASES.get(word, word)
        if word in ALLOWED or word == "verdict":
            used.add(word)
    return used


def shown(name):
    return {v: k for k, v in ALIASES.items()}.get(name, name)


def compare_table(label, rows, layer_column, uses_column):
    """Problems of one table against ALLOWED, each naming the table and the row."""
    if rows is None:
        return [f"{label}: no such section"], []
    problems, seen = [], []
    for cells in rows:
        layer = layer_of(cells[layer_column]) if len(cells) > uses_column else None
        if layer is None:
            continue
        seen.append(layer)
        listed, allowed = uses_of(cells[uses_column], layer), ALLOWED[layer]
        for name in sorted(allowed - listed):
            problems.append(f"{label}, row {layer}: lacks {shown(name)}, "
                            "which check_layers.py allows")
        for name in sorted(listed - allowed):
            problems.append(f"{label}, row {layer}: lists {shown(name)}, "
                            "which check_layers.py forbids")
    for layer in sorted(ALLOWED.keys() - set(seen)):
        problems.append(f"{label}: no row for the {layer} layer of check_layers.py")
    for layer in sorted({name for name in seen if seen.count(name) > 1}):
        problems.append(f"{label}: the {layer} layer has more than one row")
    return problems, seen


def check_order(label, order):
    """Each layer comes after every layer it may use (the order the layers are built in)."""
    problems = []
    for i, layer in enumerate(order):
        for name in sorted(ALLOWED.get(layer, set()) & set(order[i + 1:])):
            problems.append(f"{label}: {layer} comes before {name}, which it uses")
    return problems


def problems_of(architecture, development, meson):
    found = []
    arch_problems, arch_order = compare_table(
        f"{architecture}, table 'Layers'",
        table_rows(architecture.read_text(), "Layers"), 0, 2)
    found += arch_problems
    dev_problems, _ = compare_table(
        f"{development}, table 'Layout'",
        table_rows(development.read_text(), "Layout"), 0, 2)
    found += dev_problems
    built = re.findall(r"^subdir\('src/(\w+)'\)", meson.read_text(), re.M)
    if sorted(built) != sorted(ALLOWED):
        found.append(f"{meson}: builds the layers {built}, check_layers.py has {sorted(ALLOWED)}")
    found += check_order(f"{meson}, the order of subdir('src/...')", built)
    if built != arch_order and not arch_problems:
        found.append(f"{architecture}, table 'Layers': rows in the order {arch_order}, "
                     f"{meson} builds {built} (the page says the table is that order)")
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root", nargs="?", default=".")
    parser.add_argument("--architecture", help="instead of ROOT/docs/architecture.md")
    parser.add_argument("--development", help="instead of ROOT/docs/development.md")
    parser.add_argument("--meson", help="instead of ROOT/meson.build")
    args = parser.parse_args()
    root = pathlib.Path(args.root)
    found = problems_of(pathlib.Path(args.architecture or root / "docs/architecture.md"),
                        pathlib.Path(args.development or root / "docs/development.md"),
                        pathlib.Path(args.meson or root / "meson.build"))
    for problem in found:
        print(problem)
    print(f"{len(ALLOWED)} layers compared, {len(found)} differences")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
