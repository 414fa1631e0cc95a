/* verdict/kernel.h: what a benchmark module (a shared object) exports so that
 * `verdict kernel` can time its functions in-process. Needs only the C library. */
#ifndef VERDICT_KERNEL_H
#define VERDICT_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised whenever verdict_kernel or verdict_kernel_setup changes incompatibly; verdict
 * refuses a module built against another version instead of calling it wrongly. */
#define VERDICT_KERNEL_ABI_VERSION 1

/* What setup receives and fills in. A struct, so that fields can be added at the end
 * without changing the function's signature. */
typedef struct verdict_kernel_setup {
    const char *arg;          /* in: --arg TEXT or the --sweep value; NULL when none */
    void *state;              /* out: handed to run() and teardown() */
    uint64_t bytes_per_call;  /* in: the kernel's bytes_per_call; setup may change it when
                                 the work per call depends on arg (a buffer size) */
    char *error;              /* out: on failure, why (NUL-terminated, at most error_size) */
    size_t error_size;
} verdict_kernel_setup;

typedef struct verdict_kernel {
    /* Name used on the command line: letters, digits, '_', '-', '.'. */
    const char *name;
    /* One line for `verdict kernel --list`; may be NULL. */
    const char *description;
    /* Optional (NULL: state is NULL). Allocates and fills the inputs, outside the timing.
     * Returns 0, or non-zero with a message in s->error (the run then stops, exit 2). */
    int (*setup)(verdict_kernel_setup *s);
    /* Optional. Frees what setup allocated; called once per successful setup. */
    void (*teardown)(void *state);
    /* The timed body: performs `iterations` calls of the measured operation. verdict
     * divides the elapsed time by iterations, so the loop's own cost should be small next
     * to one call. Results must be kept, or the compiler may delete the work: fold them
     * into an accumulator kept in state, or pass them to verdict_kernel_keep(). */
    void (*run)(void *state, uint64_t iterations);
    /* Bytes processed per call (gives the gbps metric), or 0 when not meaningful. */
    uint64_t bytes_per_call;
} verdict_kernel;

/* A module exports both functions; VERDICT_KERNEL_MODULE(table) defines them.
 *   verdict_kernel_abi():  VERDICT_KERNEL_ABI_VERSION of the header it was built with;
 *   verdict_kernels(&n):   the table and its length (static storage, never freed). */
typedef uint32_t (*verdict_kernel_abi_fn)(void);
typedef const verdict_kernel *(*verdict_kernels_fn)(size_t *count);

#if defined(__GNUC__)
#define VERDICT_KERNEL_EXPORT __attribute__((visibility("default")))
#else
#define VERDICT_KERNEL_EXPORT
#endif

#define VERDICT_KERNEL_MODULE(table)                                                   \
    VERDICT_KERNEL_EXPORT uint32_t verdict_kernel_abi(void);                          \
    VERDICT_KERNEL_EXPORT const verdict_kernel *verdict_kernels(size_t *count);       \
    VERDICT_KERNEL_EXPORT uint32_t verdict_kernel_abi(void)                           \
    {                                                                                  \
        return VERDICT_KERNEL_ABI_VERSION;                                             \
    }                                                                                  \
    VERDICT_KERNEL_EXPORT const verdict_kernel *verdict_kernels(size_t *count)        \
    {                                                                                  \
        *count = sizeof(table) / sizeof((table)[0]);                                   \
        return (table);                                                                \
    }

/* Makes the compiler believe value is used, at no run-time cost: the empty asm takes it
 * in a register, so the computation that produced it cannot be removed. */
static inline void verdict_kernel_keep(uint64_t value)
{
#if defined(__GNUC__)
    __asm__ volatile("" : : "r"(value) : "memory");
#else
    static volatile uint64_t sink;
    sink = value;
#endif
}

#ifdef __cplusplus
}
#endif

#endif
