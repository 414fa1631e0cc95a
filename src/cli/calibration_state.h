/* The last calibration of this machine, kept in verdict's state directory by `verdict
 * calibrate` and shown by `verdict env` (docs/calibrate.md, "Where the calibration is kept"). */
#ifndef VERDICT_CLI_CALIBRATION_STATE_H
#define VERDICT_CLI_CALIBRATION_STATE_H

#include <jansson.h>

#include "common/error.h"

/* The file: $VERDICT_STATE/calibration.json, else $XDG_STATE_HOME/verdict/..., else
 * ~/.local/state/verdict/... (allocated; NULL when neither is set nor absolute). */
char *calibration_state_path(void);
/* Keeps `doc` (a verdict-calibration/1 document) as this host's last calibration: its
 * directory made, the file replaced atomically, the host's name added as "host". */
int calibration_state_save(const json_t *doc, verdict_error *err);
/* This host's last calibration (a new reference), or NULL when none is kept, the file cannot
 * be read, or it was another host's (a home directory shared between machines). */
json_t *calibration_state_load(void);

#endif
