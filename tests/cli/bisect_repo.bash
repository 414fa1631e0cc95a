# A repository for verdict bisect's tests and bench (sourced): make_bisect_repository DIR N
# SLOW [BROKEN...] makes N commits of a small C program, the commit numbered SLOW (1-based)
# adding 10% to its loop, and every commit numbered in BROKEN a file that does not compile
# (the next commit repairs it). Commit 0 (tag good) is the program before all of them.

bisect_git() { # DIR ARGS...
    local dir=$1
    shift
    git -C "$dir" -c user.name=verdict -c user.email=verdict@example.org \
        -c commit.gpgsign=false "$@"
}

# work.c with ROUNDS iterations of a multiply-add; under cachegrind about 5 instructions
# each, so 100,000 of them are nearly all of the program's count.
bisect_write_program() { # DIR ROUNDS BROKEN(0/1)
    {
        printf '#include <stdio.h>\n'
        [ "$3" = 1 ] && printf 'this line does not compile\n'
        printf 'int main(void)\n{\n    volatile unsigned long x = 1;\n'
        printf '    for (unsigned long i = 0; i < %sUL; i++)\n' "$2"
        printf '        x = x * 6364136223846793005UL + 1442695040888963407UL;\n'
        printf '    printf("%%lu\\n", (unsigned long)x);\n    return 0;\n}\n'
    } > "$1/work.c"
}

make_bisect_repository() { # DIR N SLOW [BROKEN...]
    local dir=$1 n=$2 slow=$3
    shift 3
    local broken=" $* "
    mkdir -p "$dir"
    bisect_git "$dir" init -q -b main
    bisect_write_program "$dir" 100000 0
    echo "notes 0" > "$dir/NOTES"
    bisect_git "$dir" add work.c NOTES
    bisect_git "$dir" commit -q -m "commit 0: the program"
    bisect_git "$dir" tag good
    local rounds=100000 i
    for ((i = 1; i <= n; i++)); do
        [ "$i" = "$slow" ] && rounds=110000
        if [[ "$broken" == *" $i "* ]]; then
            bisect_write_program "$dir" "$rounds" 1
        else
            bisect_write_program "$dir" "$rounds" 0
        fi
        echo "notes $i" > "$dir/NOTES"
        bisect_git "$dir" commit -q -a -m "commit $i$([ "$i" = "$slow" ] && echo ': 10% more work')"
    done
    bisect_git "$dir" tag bad
}

# The experiment: the program built by cc at each commit, its instructions counted by
# cachegrind (exact, so the tests can assert exact outcomes on a busy machine).
write_bisect_experiment() { # FILE REPO SEED [RECIPE]
    local recipe=${4:-cc -O1 -o work work.c}
    cat > "$1" <<YAML
name: work
seed: $3
counters: valgrind
warmup: 0
adaptive: {looks: [3, 5, 8]}
variants:
  work: {source: {git: $2, ref: bad}, build: "$recipe", command: ["{tree}/work"]}
metrics: [instructions]
YAML
}
