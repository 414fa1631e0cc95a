/* Writes the exports a command was asked for (JSON, CSV, Markdown, HTML, SVG files), in
 * one place so that every command offers them the same way. */
#include "report/report.h"

int report_write_exports(const report_input *in, const report_exports *to, char *err,
                         size_t errlen)
{
    if (to->json && report_write_json(in, to->json, err, errlen) != 0)
        return -1;
    if (to->csv && report_write_csv(in, to->csv, err, errlen) != 0)
        return -1;
    if (to->markdown && report_write_markdown(in, to->markdown, err, errlen) != 0)
        return -1;
    if (to->html && report_write_html(in, to->html, err, errlen) != 0)
        return -1;
    if (to->svg_dir && report_write_svg_dir(in, to->svg_dir, err, errlen) != 0)
        return -1;
    return 0;
}
