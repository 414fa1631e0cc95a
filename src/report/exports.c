/* Checks, before the run, and writes, after it, the exports a command was asked for (JSON,
 * CSV, Markdown, HTML, SVG files), in one place so that every command offers them alike. */
#include "report/report.h"

#include <string.h>

#include "common/error.h"
#include "report/output_file.h"

/* The file exports, by option: the ones that may be "-". */
typedef struct {
    const char *option, *path;
} export_file;

enum { EXPORT_FILES = 4 };

static void export_files(const report_exports *to, export_file out[EXPORT_FILES])
{
    out[0] = (export_file){"--json", to->json};
    out[1] = (export_file){"--csv", to->csv};
    out[2] = (export_file){"--markdown", to->markdown};
    out[3] = (export_file){"--html", to->html};
}

bool report_exports_use_stdout(const report_exports *to)
{
    export_file files[EXPORT_FILES];
    export_files(to, files);
    for (size_t i = 0; i < EXPORT_FILES; i++)
        if (files[i].path && strcmp(files[i].path, "-") == 0)
            return true;
    return false;
}

/* --svg writes many files: a directory, which standard output cannot be. */
static int check_svg_dir(const char *dir, verdict_error *err)
{
    verdict_error why = {0};
    if (strcmp(dir, "-") == 0) {
        error_set(err, ERROR_USAGE, "--svg -: --svg writes a directory of files, which "
                  "standard output cannot take; give a directory");
        return -1;
    }
    if (output_check_dir(dir, &why) == 0)
        return 0;
    error_set(err, ERROR_USAGE, "--svg %s", why.message); /* the option names the path */
    return -1;
}

int report_exports_check(const report_exports *to, verdict_error *err)
{
    export_file files[EXPORT_FILES];
    export_files(to, files);
    const char *on_stdout = NULL;
    verdict_error why = {0};
    for (size_t i = 0; i < EXPORT_FILES; i++) {
        if (files[i].path == NULL)
            continue;
        if (strcmp(files[i].path, "-") == 0 && on_stdout) {
            error_set(err, ERROR_USAGE, "%s - and %s -: only one export can go to standard "
                      "output (give the other a file)", on_stdout, files[i].option);
            return -1;
        }
        if (strcmp(files[i].path, "-") == 0) {
            on_stdout = files[i].option;
        } else if (output_check(files[i].path, &why) != 0) {
            error_set(err, ERROR_USAGE, "%s %s", files[i].option, why.message);
            return -1;
        }
    }
    return to->svg_dir ? check_svg_dir(to->svg_dir, err) : 0;
}

int report_write_exports(const report_input *in, const report_exports *to, verdict_error *err)
{
    if (to->json && report_write_json(in, to->json, err) != 0)
        return -1;
    if (to->csv && report_write_csv(in, to->csv, err) != 0)
        return -1;
    if (to->markdown && report_write_markdown(in, to->markdown, err) != 0)
        return -1;
    if (to->html && report_write_html(in, to->html, err) != 0)
        return -1;
    if (to->svg_dir && report_write_svg_dir(in, to->svg_dir, err) != 0)
        return -1;
    return 0;
}
