/* The error value and its one table of kinds: every kind has a row, names are distinct, exit
 * statuses are the documented ones, messages keep their kind through prefixes and copies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "common/error.h"

static void every_kind_has_a_distinct_name(void **state)
{
    (void)state;
    for (int a = 0; a < ERROR_KIND_COUNT; a++) {
        const error_kind_row *row = error_kind_info((error_kind)a);
        assert_non_null(row->name);
        assert_true(row->name[0] != '\0');
        for (int b = 0; b < a; b++)
            assert_string_not_equal(row->name, error_kind_name((error_kind)b));
    }
}

static void exit_statuses_are_the_documented_ones(void **state)
{
    (void)state;
    assert_int_equal(error_exit_status(ERROR_NONE), 0);
    assert_int_equal(error_exit_status(ERROR_USAGE), 2);
    assert_int_equal(error_exit_status(ERROR_BAD_INPUT), 2);
    assert_int_equal(error_exit_status(ERROR_COMMAND_FAILED), 3);
    assert_int_equal(error_exit_status(ERROR_INTERRUPTED), 130);
    assert_int_equal(error_exit_status(ERROR_INTERNAL), 1);
    assert_int_equal(error_exit_status(ERROR_NO_MEMORY), 1);
    assert_int_equal(error_exit_status(ERROR_STORE), 1);
    assert_int_equal(error_exit_status(ERROR_STORE_LOCKED), 2);
    assert_int_equal(error_exit_status(ERROR_PLAN_CHANGED), 2);
    /* a value outside the table is treated as internal, never as success */
    assert_int_equal(error_exit_status((error_kind)999), 1);
}

static void prefix_and_copy_keep_the_kind(void **state)
{
    (void)state;
    verdict_error err, copy;
    error_clear(&err);
    assert_int_equal(error_set(&err, ERROR_STORE_LOCKED, "pid %d", 42), -1);
    assert_int_equal(error_prefix(&err, "store %s", "a.db"), -1);
    assert_string_equal(err.message, "store a.db: pid 42");
    assert_true(error_is(&err, ERROR_STORE_LOCKED));
    assert_int_equal(error_copy(&copy, &err), -1);
    assert_true(error_is(&copy, ERROR_STORE_LOCKED));
    assert_string_equal(copy.message, err.message);
    assert_int_equal(error_no_memory(&err), -1);
    assert_true(error_is(&err, ERROR_NO_MEMORY));
    assert_false(error_is(NULL, ERROR_NO_MEMORY));
}

static void a_long_message_is_visibly_cut(void **state)
{
    (void)state;
    verdict_error err;
    char long_text[ERROR_MESSAGE_SIZE * 2];
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    error_set(&err, ERROR_BAD_INPUT, "%s", long_text);
    size_t n = strlen(err.message);
    assert_int_equal(n, ERROR_MESSAGE_SIZE - 1);
    assert_string_equal(err.message + n - 3, "...");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_kind_has_a_distinct_name),
        cmocka_unit_test(exit_statuses_are_the_documented_ones),
        cmocka_unit_test(prefix_and_copy_keep_the_kind),
        cmocka_unit_test(a_long_message_is_visibly_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
