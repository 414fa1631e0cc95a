#!/usr/bin/env bats
# The help pages, the man page and the completions made from them (pages/pages.py) agree,
# `meson install --destdir` puts them beside the binary, and man renders the page cleanly.

# Each page once (verdict help NAME; "verdict" is verdict's own) and the table, for every test.
setup_file() {
    "${VERDICT:?set VERDICT to the verdict binary}" help --commands > "$BATS_FILE_TMPDIR/table"
    "$VERDICT" help > "$BATS_FILE_TMPDIR/page-verdict"
    cut -f1 "$BATS_FILE_TMPDIR/table" | while read -r name; do
        "$VERDICT" help "$name" > "$BATS_FILE_TMPDIR/page-$name"
    done
}

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    MAN_PAGE=${MAN_PAGE:?set MAN_PAGE to the built verdict.1}
    BASH_COMPLETION=${BASH_COMPLETION:?set BASH_COMPLETION to the built bash completion}
    ZSH_COMPLETION=${ZSH_COMPLETION:?set ZSH_COMPLETION to the built zsh completion}
    PAGES=$BATS_FILE_TMPDIR
    DATA=$(mktemp -d)
}

teardown() {
    rm -rf "$DATA"
}

commands() {
    cut -f1 "$PAGES/table"
}

# The options a page describes: the words of its option lines that start with - or --.
page_options() {
    grep -E '^ {2,6}-' | grep -oE -- '(^|[ ,])--?[A-Za-z0-9][A-Za-z0-9-]*' | tr -d ' ,' | sort -u
}

# The man page's source of one command's section ("" is verdict's own), minus signs plain.
man_section() {
    if [ -z "$1" ]; then
        awk '/^\.SH DESCRIPTION/{on=1;next} on&&/^\.SH /{exit} on' "$MAN_PAGE"
    else
        awk -v h=".SS \"verdict $1\"" '$0==h{on=1;next} on&&/^\.S[SH] /{exit} on' "$MAN_PAGE"
    fi | sed 's/\\-/-/g'
}

@test "verdict --help lists every command of the table with its summary" {
    run "$VERDICT" --help
    [ "$status" -eq 0 ]
    [ "$(commands | wc -l)" -ge 12 ]
    local listed
    listed=$(commands)
    for name in run report compare kernel plan build cache env worker calibrate help version; do
        grep -qx "$name" <<< "$listed" || { echo "not in the table: $name"; false; }
    done
    while IFS=$'\t' read -r name summary; do
        grep -qF "  $(printf '%-11s' "$name") $summary" <<< "$output" ||
            { echo "verdict --help does not list $name"; false; }
    done < "$PAGES/table"
}

@test "verdict help COMMAND and verdict COMMAND --help print the same page" {
    for name in $(commands); do
        [ "$name" = help ] && continue
        diff "$PAGES/page-$name" <("$VERDICT" "$name" --help) ||
            { echo "pages differ: $name"; false; }
        head -1 "$PAGES/page-$name" | grep -q "^usage: verdict $name" ||
            { echo "no usage line: $name"; false; }
    done
    diff "$PAGES/page-verdict" <("$VERDICT" --help)
    diff <("$VERDICT" help help) <("$VERDICT" help --help)
}

@test "verdict help refuses a command it does not know, exit 2" {
    run "$VERDICT" help no-such-command
    [ "$status" -eq 2 ]
    [[ "$output" == *"no command 'no-such-command'"* ]]
}

@test "every option of every page is in the man page, in that command's section" {
    for name in "" $(commands); do
        local section missing
        section=$(man_section "$name")
        [ -n "$section" ] || { echo "no section for '$name'"; false; }
        missing=$(comm -23 <(page_options < "$PAGES/page-${name:-verdict}") \
            <(grep -oE -- '--?[A-Za-z0-9][A-Za-z0-9-]*' <<< "$section" | sort -u))
        [ -z "$missing" ] || { echo "'$name': not in the man page:" $missing; false; }
    done
    # the run page's options, counted: a page read as no options would pass the loop above
    [ "$(page_options < "$PAGES/page-run" | wc -l)" -ge 20 ]
    grep -q -- '--experiments' <<< "$(man_section calibrate)"
    ! grep -q -- '--experiments' <<< "$(man_section compare)"
}

@test "the man page has every exit status and renders without a warning" {
    while IFS=$'\t' read -r code meaning; do
        grep -qx "\\\\fB$code\\\\fR" "$MAN_PAGE" || { echo "exit status $code missing"; false; }
    done < <("$VERDICT" help --exit-status)
    grep -q '^\.SH "EXIT STATUS"' "$MAN_PAGE"
    run groff -man -ww -z "$MAN_PAGE"
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    MANWIDTH=80 man -l "$MAN_PAGE" > "$DATA/page" 2> "$DATA/warnings"
    [ ! -s "$DATA/warnings" ] || { cat "$DATA/warnings"; false; }
    grep -q '^EXIT STATUS' "$DATA/page"
    grep -q 'verdict calibrate' "$DATA/page"
}

# What the bash completion offers for the words given (the last is being completed).
complete_bash() {
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _verdict
             printf "%s\n" "${COMPREPLY[@]}"' complete "$BASH_COMPLETION" "$@"
}

@test "the bash completion offers the commands, then each command's own options" {
    [ "$(complete_bash verdict r)" = "$(printf 'run\nreport')" ]
    complete_bash verdict '' | grep -qx worker
    complete_bash verdict compare --me | grep -qx -- --metric
    complete_bash verdict --me | grep -qx -- --metric
    complete_bash verdict ./prog --me | grep -qx -- --metric
    complete_bash verdict run x.yaml --dr | grep -qx -- --dry-run
    # run has no --metric: the options are the command's, not everyone's
    [ -z "$(complete_bash verdict run x.yaml --metr)" ]
    [ -z "$(complete_bash verdict compare a.txt)" ]
}

# What the zsh completion offers for the words given, with zsh's completion functions
# replaced by ones that print what they are given.
complete_zsh() {
    mkdir -p "$DATA/fn"
    cp "$ZSH_COMPLETION" "$DATA/fn/_verdict"
    zsh -f -c 'compadd() { [[ $1 == -a ]] && print -rl -- ${(P)2}; }
               _describe() { print -rl -- ${(P)4%%:*}; }
               _files() { print -r FILES; }
               fpath=("$1" $fpath); autoload -Uz _verdict; shift
               words=("$@"); CURRENT=$#; PREFIX=${words[-1]}; _verdict' complete "$DATA/fn" "$@"
}

@test "the zsh completion offers the commands, then each command's own options" {
    command -v zsh >/dev/null || skip "no zsh"
    zsh -n "$ZSH_COMPLETION"
    # the first word: every command (zsh picks those that match), or a program or file
    [ "$(complete_zsh verdict wor | grep -vx FILES | sort)" = "$(commands | sort)" ]
    complete_zsh verdict wor | grep -qx FILES
    complete_zsh verdict compare --me | grep -qx -- --metric
    complete_zsh verdict --me | grep -qx -- --metric
    complete_zsh verdict run x.yaml --st | grep -qx -- --store
    ! complete_zsh verdict run x.yaml --me | grep -qx -- --metric
    [ "$(complete_zsh verdict compare a.txt)" = FILES ]
}

@test "meson install --destdir puts the binary, the man page, the completions and the docs" {
    [ -n "${MESON:-}" ] && [ -n "${BUILD_ROOT:-}" ] || skip "MESON and BUILD_ROOT not given"
    "$MESON" install -C "$BUILD_ROOT" --destdir "$DATA/root" --no-rebuild --quiet
    local root=$DATA/root$PREFIX
    [ -x "$root/bin/verdict" ]
    cmp "$MAN_PAGE" "$root/share/man/man1/verdict.1"
    cmp "$BASH_COMPLETION" "$root/share/bash-completion/completions/verdict"
    [ -s "$root/share/zsh/site-functions/_verdict" ]
    [ -s "$root/share/doc/verdict/statistics.md" ]
    [ -s "$root/share/doc/verdict/README.md" ]
    "$root/bin/verdict" --version | grep -q '^verdict '
    MANWIDTH=80 man -l "$root/share/man/man1/verdict.1" 2>&1 >/dev/null | { ! grep .; }
    cmp "$ZSH_COMPLETION" "$root/share/zsh/site-functions/_verdict"
}
