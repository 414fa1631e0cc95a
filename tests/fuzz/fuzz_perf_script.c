/* libFuzzer target for the reader of `perf script`'s text: any bytes give either a profile
 * whose counts agree (a symbol's own samples within its children's, within the run's; the
 * stacks adding up to the run) and that comes back whole from its text forms, or an error;
 * never a crash. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "core/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_profile(const profile_data *p)
{
    long stacked = 0;
    for (size_t i = 0; i < p->n_stacks; i++)
        stacked += p->stacks[i].samples;
    if (stacked != p->samples)
        abort();
    for (size_t i = 0; i < p->n_symbols; i++)
        if (p->symbols[i].self > p->symbols[i].children || p->symbols[i].children > p->samples ||
            p->symbols[i].children <= 0)
            abort();
    strbuf symbols = STRBUF_INIT, stacks = STRBUF_INIT;
    profile_symbols_text(p, &symbols);
    profile_stacks_text(p, &stacks);
    profile_data back;
    verdict_error err = {ERROR_NONE, ""};
    if (strbuf_status(&symbols) == 0 && strbuf_status(&stacks) == 0) {
        if (profile_from_text(strbuf_text(&symbols), strbuf_text(&stacks), &back, &err) != 0 ||
            back.samples != p->samples || back.n_symbols != p->n_symbols ||
            back.n_stacks != p->n_stacks)
            abort();
        profile_data_free(&back);
    }
    strbuf_free(&symbols);
    strbuf_free(&stacks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    profile_data p;
    verdict_error err = {ERROR_NONE, ""};
    if (profile_parse_script((const char *)data, size, &p, &err) == 0) {
        check_profile(&p);
        profile_data_free(&p);
    } else if (!error_is(&err, ERROR_BAD_INPUT) && !error_is(&err, ERROR_NO_MEMORY)) {
        abort();
    }
    return 0;
}
