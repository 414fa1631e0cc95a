/* For the counters' cmocka tests (include after <cmocka.h>): whether this machine lets them
 * count at all, and fresh pages of the thread's own to fault, one fault each. */
#ifndef VERDICT_TESTS_COUNTERS_TESTING_H
#define VERDICT_TESTS_COUNTERS_TESTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "env/perf_counters.h"

/* Where perf_event_open is forbidden altogether (perf_event_paranoid 3 for a user, a
 * container's seccomp profile), no real count can be tested: said, and skipped (failed in
 * CI, which runs as root on a VM where software events open). */
static inline bool counting_forbidden(void)
{
    perf_counters_spec clock = {perf_counters_event_find("task-clock"), PERF_COUNTERS_USER};
    verdict_error err = {0};
    if (perf_counters_probe(&clock, &err) == 0)
        return false;
    if (getenv("VERDICT_CI") != NULL)
        fail_msg("%s", err.message);
    print_message("SKIPPED: %s\n", err.message);
    return true;
}

/* Maps `pages` pages (no huge pages: one fault each), writes to each and unmaps them, in
 * code ASan does not instrument (its shadow memory would fault too); false when the mapping
 * failed. */
__attribute__((no_sanitize_address)) static inline bool fresh_pages_touch(size_t pages)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    volatile char *memory = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED)
        return false;
    madvise((void *)memory, pages * page, MADV_NOHUGEPAGE);
    for (size_t i = 0; i < pages; i++)
        memory[i * page] = 1;
    munmap((void *)memory, pages * page);
    return true;
}

#endif
