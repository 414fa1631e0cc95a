/* Unit tests of shell-like word splitting (src/core/command_words.c): quotes, escapes,
 * empty words, the errors, and joining words back into a line that splits the same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/error.h"

#include "core/command_words.h"

static void expect_words(const char *line, const char *const *expected, size_t n)
{
    command_words w;
    verdict_error err = {0};
    if (command_words_split(line, &w, &err) != 0)
        fail_msg("%s: %s", line, err.message);
    assert_int_equal(w.n, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(w.words[i], expected[i]);
    assert_null(w.words[n]);
    command_words_free(&w);
}

static void test_split_like_a_shell(void **unused)
{
    (void)unused;
    const char *plain[] = {"./a.out", "-n", "5"};
    expect_words("  ./a.out\t-n 5 \n", plain, 3);
    const char *single[] = {"echo", "a  b", "$HOME"};
    expect_words("echo 'a  b' '$HOME'", single, 3);
    const char *dbl[] = {"say", "x \"y\" \\ $z `w`", "\\n"};
    expect_words("say \"x \\\"y\\\" \\\\ \\$z \\`w\\`\" \"\\n\"", dbl, 3);
    const char *escaped[] = {"a b", "c"};
    expect_words("a\\ b c", escaped, 2);
    const char *glued[] = {"prefix-quoted part-end"};
    expect_words("prefix-'quoted part'-end", glued, 1);
    const char *empty[] = {"run", "", "x"};
    expect_words("run '' x", empty, 3);
}

static void expect_error(const char *line, const char *fragment)
{
    command_words w;
    verdict_error err = {0};
    assert_int_equal(command_words_split(line, &w, &err), -1);
    assert_non_null(strstr(err.message, fragment));
    assert_null(w.words);
}

static void test_errors(void **unused)
{
    (void)unused;
    expect_error("echo 'open", "unterminated quote");
    expect_error("echo \"open", "unterminated quote");
    expect_error("echo trailing\\", "trailing backslash");
    expect_error("   ", "empty command");
}

/* Joined words split back into the same words, whatever they hold. */
static void test_join_round_trip(void **unused)
{
    (void)unused;
    const char *words[] = {"plain", "two words", "it's", "", "$x*?[]", "a\"b\\c", "{}"};
    command_words w, back;
    assert_int_equal(command_words_copy(words, 7, &w), 0);
    char *line = command_words_join(&w);
    assert_non_null(line);
    verdict_error err = {0};
    assert_int_equal(command_words_split(line, &back, &err), 0);
    assert_int_equal(back.n, 7);
    for (size_t i = 0; i < 7; i++)
        assert_string_equal(back.words[i], words[i]);
    assert_string_equal(strtok(line, " "), "plain"); /* plain words stay unquoted */
    free(line);
    command_words_free(&w);
    command_words_free(&back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_like_a_shell),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_join_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
