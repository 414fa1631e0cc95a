/* Opening the store for an experiment: the default path beside the file, the seed settled
 * before the plan hash is taken, and the store's refusal of a changed plan as a usage error. */
#include "lab/lab_store.h"

#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "version.h"

char *lab_default_store_path(const char *experiment_path)
{
    size_t length = strlen(experiment_path);
    const char *dot = strrchr(experiment_path, '.');
    const char *slash = strrchr(experiment_path, '/');
    if (dot && (!slash || dot > slash))
        length = (size_t)(dot - experiment_path);
    strbuf path = STRBUF_INIT;
    strbuf_appendf(&path, "%.*s.db", (int)length, experiment_path);
    return strbuf_detach(&path);
}

void lab_settle_seed(experiment *e)
{
    if (!e->has_seed)
        e->seed = experiment_plan_hash(e) % 1000000000u;
}

int lab_open_store(const char *path, const experiment *e, store **db, int64_t *experiment_id,
                   bool *existing, verdict_error *err)
{
    char why[1024] = "";
    store_experiment se = {
        .name = e->name, .text = e->text, .text_length = e->text_length,
        .text_hash = experiment_text_hash(e), .plan_hash = experiment_plan_hash(e),
        .seed = e->seed, .tool_version = VERDICT_VERSION};
    *db = NULL;
    if (store_open(path, db, why, sizeof why) != 0)
        return error_set(err, ERROR_INTERNAL, "%s", why);
    int rc = store_open_experiment(*db, &se, experiment_id, existing, why, sizeof why);
    if (rc == 0)
        return 0;
    store_close(*db);
    *db = NULL;
    if (rc == STORE_PLAN_CHANGED && experiment_has_sources(e))
        return error_set(err, ERROR_USAGE, "%s (the content of the variants' sources is part "
                         "of the plan: a commit or an edit since the stored samples is a new "
                         "build, measured in a new store)", why);
    return error_set(err, rc == STORE_PLAN_CHANGED ? ERROR_USAGE : ERROR_INTERNAL, "%s", why);
}
