/* Test module for `verdict kernel`: spin kernels with a known amount of work (one 20%
 * slower), kernels that fault a known number of pages, byte-counting and failing setups;
 * -D flags build broken variants of it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "verdict/kernel.h"

/* Work per call: steps of a multiply-xorshift mix. Each step depends on the previous one,
 * and the mix is not affine, so the compiler can neither parallelise nor collapse it. */
#define SPIN_STEPS 40
#define SPIN_SLOW_STEPS 48 /* 20% more work: the injected regression */

typedef struct {
    uint64_t steps;  /* read at run time: spin and spin_slow execute identical code */
    uint64_t acc;
} spin_state;

static int spin_setup_steps(verdict_kernel_setup *s, uint64_t steps)
{
    spin_state *state = malloc(sizeof *state);
    if (state == NULL) {
        snprintf(s->error, s->error_size, "out of memory");
        return -1;
    }
    *state = (spin_state){.steps = steps, .acc = 0x9e3779b97f4a7c15u};
    s->state = state;
    return 0;
}

static int spin_setup(verdict_kernel_setup *s)
{
    return spin_setup_steps(s, SPIN_STEPS);
}

static int spin_slow_setup(verdict_kernel_setup *s)
{
    return spin_setup_steps(s, SPIN_SLOW_STEPS);
}

/* The arg is the bytes per call (a buffer size in a real module); it must be a number. */
static int sized_setup(verdict_kernel_setup *s)
{
    char *end = NULL;
    unsigned long long bytes = s->arg ? strtoull(s->arg, &end, 10) : 64;
    if (s->arg && (end == s->arg || *end != '\0' || bytes == 0)) {
        snprintf(s->error, s->error_size, "'%s' is not a size in bytes", s->arg);
        return -1;
    }
    s->bytes_per_call = bytes;
    return spin_setup_steps(s, SPIN_STEPS);
}

static int refusing_setup(verdict_kernel_setup *s)
{
    snprintf(s->error, s->error_size, "refused on purpose");
    return -1;
}

static void spin_teardown(void *state)
{
    free(state);
}

static void spin_run(void *opaque, uint64_t iterations)
{
    spin_state *state = opaque;
    uint64_t x = state->acc;
    for (uint64_t i = 0; i < iterations; i++)
        for (uint64_t k = 0; k < state->steps; k++) {
            x ^= x >> 29;
            x *= 0xbf58476d1ce4e5b9u;
        }
    state->acc = x;
    verdict_kernel_keep(x);
}

/* A kernel without setup gets a NULL state; this one only counts down. */
static void stateless_run(void *state, uint64_t iterations)
{
    (void)state;
    for (uint64_t i = 0; i < iterations; i++)
        verdict_kernel_keep(i);
}

/* Each call maps `pages` fresh pages, writes one byte to each and unmaps them: `pages` page
 * faults a call, whatever the machine's load (tests of the counters per call); not
 * instrumented, or ASan's shadow memory would fault too. */
__attribute__((no_sanitize_address)) static void touch_pages(uint64_t iterations, size_t pages)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (uint64_t i = 0; i < iterations; i++) {
        unsigned char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            abort();
        for (size_t k = 0; k < pages; k++)
            p[k * page] = (unsigned char)i;
        verdict_kernel_keep(p[0]);
        munmap(p, pages * page);
    }
}

static void touch_one_run(void *state, uint64_t iterations)
{
    (void)state;
    touch_pages(iterations, 1);
}

static void touch_two_run(void *state, uint64_t iterations)
{
    (void)state;
    touch_pages(iterations, 2);
}

static const verdict_kernel fake_kernels[] = {
    {"spin", "40 dependent multiply-xorshift steps", spin_setup, spin_teardown, spin_run, 0},
    {"spin_same", "spin again: an A/A check", spin_setup, spin_teardown, spin_run, 0},
    {"spin_slow", "48 steps: 20% more work than spin", spin_slow_setup, spin_teardown, spin_run, 0},
    {"sized", "spin, reporting --arg bytes per call", sized_setup, spin_teardown, spin_run, 64},
    {"refusing", "setup always fails", refusing_setup, spin_teardown, spin_run, 0},
    {"stateless", "no setup: state is NULL", NULL, NULL, stateless_run, 0},
    {"touch_one", "maps, writes and unmaps 1 page: 1 page fault a call", NULL, NULL,
     touch_one_run, 0},
    {"touch_two", "maps, writes and unmaps 2 pages: 2 page faults a call", NULL, NULL,
     touch_two_run, 0},
};

#if defined(FAKE_NO_EXPORTS)
/* Looks like a plugin but exports neither verdict symbol. */
VERDICT_KERNEL_EXPORT const verdict_kernel *other_plugin_entry(size_t *count);
VERDICT_KERNEL_EXPORT const verdict_kernel *other_plugin_entry(size_t *count)
{
    *count = 0;
    return fake_kernels;
}
#elif defined(FAKE_WRONG_ABI)
/* Claims a future ABI version that this verdict must refuse. */
VERDICT_KERNEL_EXPORT uint32_t verdict_kernel_abi(void);
VERDICT_KERNEL_EXPORT const verdict_kernel *verdict_kernels(size_t *count);
VERDICT_KERNEL_EXPORT uint32_t verdict_kernel_abi(void)
{
    return 999;
}
VERDICT_KERNEL_EXPORT const verdict_kernel *verdict_kernels(size_t *count)
{
    *count = sizeof fake_kernels / sizeof fake_kernels[0];
    return fake_kernels;
}
#else
VERDICT_KERNEL_MODULE(fake_kernels)
#endif
