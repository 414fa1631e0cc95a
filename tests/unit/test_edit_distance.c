/* The one Levenshtein distance behind every "did you mean": known distances, the cap on
 * long words, and the choice of the closest name (none when every name is too far). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "common/edit_distance.h"

static void distances_count_single_edits(void **state)
{
    (void)state;
    assert_int_equal(edit_distance("", ""), 0);
    assert_int_equal(edit_distance("cycles", "cycles"), 0);
    assert_int_equal(edit_distance("", "abc"), 3);
    assert_int_equal(edit_distance("instructons", "instructions"), 1); /* an insertion */
    assert_int_equal(edit_distance("comapre", "compare"), 2);         /* a swap is two */
    assert_int_equal(edit_distance("kitten", "sitting"), 3);
    assert_int_equal(edit_distance("sitting", "kitten"), 3);
    assert_int_equal(edit_distance("L1", "l1"), 1);                   /* case counts */
    char longer[EDIT_DISTANCE_MAX_WORD + 2];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    assert_int_equal(edit_distance(longer, longer), EDIT_DISTANCE_FAR);
    longer[EDIT_DISTANCE_MAX_WORD] = '\0'; /* the longest word still measured */
    assert_int_equal(edit_distance(longer, longer), 0);
}

static void the_closest_name_within_reach(void **state)
{
    (void)state;
    static const char *const names[] = {"run", "report", "compare", "env"};
    assert_string_equal(edit_distance_closest("comapre", names, 4, 2), "compare");
    assert_string_equal(edit_distance_closest("rum", names, 4, 2), "run");
    assert_null(edit_distance_closest("watts", names, 4, 2));
    assert_null(edit_distance_closest("x", names, 4, 2)); /* as many edits as letters */
    assert_string_equal(edit_distance_closest("en", names, 4, 2), "env");
    static const char *const ties[] = {"ab", "ac"};
    assert_string_equal(edit_distance_closest("aa", ties, 2, 2), "ab"); /* the first */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(distances_count_single_edits),
        cmocka_unit_test(the_closest_name_within_reach),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
