#!/usr/bin/env python3
# Makes the man page verdict(1) and the bash and zsh completions from the one table of
# commands, as `verdict help` prints it (src/cli/command_list.c): no second copy of any text.
"""Usage: pages.py roff|bash|zsh VERDICT OUTPUT

The pages are read from the verdict binary given: `verdict help --commands` names the
commands, `verdict help [COMMAND]` prints each page, `verdict help --exit-status` the exit
statuses. A page is read as usage lines, then prose, headings ("runs:") and items (an
option or a command in the left column, its description from column 20 or so on).
"""
import re
import subprocess
import sys

ITEM = re.compile(r"^ {2,6}(\S.*?)(?: {2,}(\S.*))?$")
CONTINUATION = re.compile(r"^ {12,}(\S.*)$")


def verdict(binary, *args):
    return subprocess.run([binary, *args], check=True, capture_output=True,
                          text=True).stdout


def commands(binary):
    """[(name, summary)] in the table's order."""
    return [tuple(line.split("\t", 1)) for line in
            verdict(binary, "help", "--commands").splitlines()]


def split_page(text):
    """(usage lines without 'usage: ', the lines after them)."""
    lines = text.splitlines()
    usage = []
    while lines and (lines[0].startswith("usage: ") or lines[0].startswith("       ")):
        usage.append(lines.pop(0)[7:].strip())
    return usage, lines


def blocks(lines):
    """The page's body as ('text', words) paragraphs, ('heading', text) and
    ('item', term, description) entries."""
    out = []
    for line in lines:
        continued = CONTINUATION.match(line)
        item = ITEM.match(line)
        if not line.strip():
            out.append(("break",))
        elif continued and out and out[-1][0] == "item":
            out[-1] = ("item", out[-1][1], (out[-1][2] + " " + continued.group(1)).strip())
        elif item:
            out.append(("item", item.group(1), item.group(2) or ""))
        elif line.endswith(":") and not line.startswith(" ") and len(line) < 100 and \
                not (out and out[-1][0] == "text"):
            out.append(("heading", line))
        elif out and out[-1][0] == "text":
            out[-1] = ("text", out[-1][1] + " " + line.strip())
        else:
            out.append(("text", line.strip()))
    return out


def options(page):
    """Every option a page describes ("-r", "--runs", ...), in order, once each."""
    found = []
    for entry in blocks(split_page(page)[1]):
        if entry[0] != "item" or not entry[1].startswith("-"):
            continue
        for part in entry[1].split(", "):
            word = part.split(" ")[0]
            if re.fullmatch(r"--?[A-Za-z0-9][A-Za-z0-9-]*", word) and word not in found:
                found.append(word)
    return found


# ---- roff ----

def roff(text):
    """Text escaped for roff: backslashes, minus signs, a leading dot or quote, non-ASCII."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    text = "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in text)
    return "\\&" + text if text[:1] in (".", "'") else text


def roff_body(entries):
    """Paragraphs, bold headings, and items as tagged paragraphs set close together."""
    out, close, blank = [], False, False
    for entry in entries:
        kind = entry[0]
        if kind == "break":  # a blank line of the page: kept before a list of items
            blank = True
            continue
        if kind == "item" and not close:
            out += [".sp"] * (blank and bool(out)) + [".PD 0"]
        elif kind != "item" and close:
            out.append(".PD")
        close, blank = kind == "item", False
        if kind == "text":
            out += [".PP", roff(entry[1])]
        elif kind == "heading":
            out += [".PP", "\\fB" + roff(entry[1]) + "\\fR"]
        else:
            width = "" if entry[1].startswith("-") else " 12"  # a command: its summary beside it
            out += [".TP" + width, "\\fB" + roff(entry[1]) + "\\fR", roff(entry[2]) or "\\&"]
    return out + ([".PD"] if close else [])


def synopsis(usage):
    out = [".PP", ".nf"]
    for line in usage:
        first, _, rest = line.partition(" ")
        out.append("\\fB" + roff(first) + "\\fR " + roff(rest))
    return out + [".fi"]


def man_page(binary):
    version = verdict(binary, "--version").split()[-1]
    usage, body = split_page(verdict(binary, "help"))
    listed = commands(binary)
    pages = {name: split_page(verdict(binary, "help", name)) for name, _ in listed}
    out = ['.\\" verdict(1), generated from `verdict help` by pages/pages.py: edit the pages',
           '.\\" in src/cli, not this file.',
           '.TH VERDICT 1 "" "verdict %s" "User Commands"' % version,
           ".SH NAME",
           "verdict \\- run command variants in interleaved randomized blocks and say which is"
           " faster, with a confidence interval",
           ".SH SYNOPSIS"]
    out += synopsis(usage + [u for name, _ in listed for u in pages[name][0]])
    out += [".SH DESCRIPTION"] + roff_body(blocks(body))
    out.append(".SH COMMANDS")
    for name, summary in listed:
        out += [".SS \"verdict %s\"" % name, roff(summary[:1].upper() + summary[1:]) + "."]
        out += synopsis(pages[name][0]) + roff_body(blocks(pages[name][1]))
    out += [".SH \"EXIT STATUS\"", "Every command exits with one of these; each command's"
            " section says which it can."]
    for line in verdict(binary, "help", "--exit-status").splitlines():
        status, meaning = line.split("\t", 1)
        out += [".TP", "\\fB" + status + "\\fR", roff(meaning)]
    out += [".SH FILES", "The documentation, the JSON Schema of the verdict/1 document"
            " (verdict.schema.json) and the examples' notes are installed in the doc"
            " directory (such as /usr/local/share/doc/verdict).",
            ".SH \"SEE ALSO\"", "\\fBhyperfine\\fR(1), \\fBbenchstat\\fR(1), \\fBministat\\fR(1)"]
    return "\n".join(out) + "\n"


# ---- completions ----

def option_table(binary):
    """{command or "": its options}; "" is the default command."""
    table = {"": options(verdict(binary, "help"))}
    for name, _ in commands(binary):
        table[name] = options(verdict(binary, "help", name))
    return table


def bash_completion(binary):
    names = [name for name, _ in commands(binary)]
    cases = "\n".join("        %s) words='%s' ;;" % (name or "*", " ".join(opts))
                      for name, opts in sorted(option_table(binary).items(),
                                               key=lambda kv: kv[0] == ""))
    return f"""# bash completion for verdict: its commands, then each command's options; generated
# from `verdict help` by pages/pages.py (edit the pages in src/cli, not this file).
_verdict()
{{
    local cur=${{COMP_WORDS[COMP_CWORD]}} words
    COMPREPLY=()
    if [[ $COMP_CWORD -eq 1 && $cur != -* ]]; then
        COMPREPLY=($(compgen -W '{" ".join(names)}' -- "$cur"))
        return 0
    fi
    [[ $cur == -* ]] || return 0
    local command=${{COMP_WORDS[1]}}
    case $command in
{cases}
    esac
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}}
complete -o default -o bashdefault -F _verdict verdict
"""


def zsh_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def zsh_completion(binary):
    listed = commands(binary)
    described = "\n".join("    %s" % zsh_quote(name + ":" + summary.replace(":", "\\:"))
                          for name, summary in listed)
    cases = "\n".join("    %s) opts=(%s) ;;" % (name or "*", " ".join(opts))
                      for name, opts in sorted(option_table(binary).items(),
                                               key=lambda kv: kv[0] == ""))
    return f"""#compdef verdict
# zsh completion for verdict: its commands, then each command's options; generated from
# `verdict help` by pages/pages.py (edit the pages in src/cli, not this file).
local -a commands opts
commands=(
{described}
)
if (( CURRENT == 2 )) && [[ $PREFIX != -* ]]; then
    _describe -t commands 'verdict command' commands
    _files
    return
fi
case $words[2] in
{cases}
esac
if [[ $PREFIX == -* ]]; then
    compadd -a opts
else
    _files
fi
"""


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("roff", "bash", "zsh"):
        sys.exit(__doc__)
    make = {"roff": man_page, "bash": bash_completion, "zsh": zsh_completion}[sys.argv[1]]
    text = make(sys.argv[2])
    with open(sys.argv[3], "w", encoding="utf-8") as out:
        out.write(text)


if __name__ == "__main__":
    main()
