#!/usr/bin/env python3
# Every long option a command's parser takes is on its help page, and every option its page
# names is one its parser takes: the page (and the man page made from it) cannot drift.
"""Usage: check_help_options.py VERDICT SOURCE_ROOT

A command's page is `verdict help NAME`; its parser is the getopt_long table of the file
that defines its page (`cmd_NAME_help[]`, from src/cli/command_list.c's table), with the
shared groups REPORT_LONG_OPTIONS and TEXT_LONG_OPTIONS where the file uses them.
"""
import pathlib
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "pages"))
import pages  # noqa: E402  (the one reading of a page's options)

LONG = re.compile(r'\{"([a-z][a-z0-9-]*)",\s*(?:no|required|optional)_argument')
# Options a parser takes on purpose without its page naming them, each with its reason.
UNLISTED = {
    ("", "name"): "hyperfine's short spelling of --command-name, kept for its scripts",
    ("build", "older-than"): "build and cache share one parser; prune's option is no build's",
}


def group(cli, name):
    """The long options of a #define NAME group of src/cli's headers (and the groups it uses)."""
    for header in cli.glob("*.h"):
        text = header.read_text()
        body = re.search(rf"#define {name}\b((?:.*\\\n)*.*)", text)
        if body:
            found = set(LONG.findall(body.group(1)))
            for inner in re.findall(r"\b([A-Z_]+_LONG_OPTIONS)\b", body.group(1)):
                found |= group(cli, inner) if inner != name else set()
            return found
    raise SystemExit(f"no #define {name} in {cli}/*.h")


def parser_options(cli, help_name):
    """The file defining help_name[] and the long options of its getopt tables."""
    for source in sorted(cli.glob("*.c")):
        text = source.read_text()
        if re.search(rf"^const char {help_name}\[\]", text, re.M):
            found = set(LONG.findall(text))
            for used in set(re.findall(r"\b([A-Z_]+_LONG_OPTIONS)\b", text)):
                found |= group(cli, used)
            return source, found
    raise SystemExit(f"no file of {cli} defines {help_name}[]")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    verdict, cli = sys.argv[1], pathlib.Path(sys.argv[2]) / "src" / "cli"
    problems, checked = [], 0
    for name in [""] + [n for n, _ in pages.commands(verdict)]:
        source, parsed = parser_options(cli, "cmd_%s_help" % (name or "bench"))
        if not parsed:  # help and version read their words by hand
            continue
        page = subprocess.run([verdict, "help", *([name] if name else [])], check=True,
                              capture_output=True, text=True).stdout
        listed = {o[2:] for o in pages.options(page) if o.startswith("--")}
        checked += len(parsed)
        who = "verdict " + name if name else "verdict"
        problems += [f"{who}: --{o} is parsed ({source.name}) but not on its page"
                     for o in sorted(parsed - listed) if (name, o) not in UNLISTED]
        problems += [f"{who}: its page names --{o}, which {source.name} does not parse"
                     for o in sorted(listed - parsed)]
    if checked < 100:
        problems.append(f"only {checked} options read: the tables were not found")
    print("\n".join(problems) or f"{checked} options of every command agree with their pages")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
