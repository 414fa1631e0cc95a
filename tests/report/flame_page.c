/* Writes an HTML page holding the flame graph section of the tests' profile, for the check
 * in headless Chromium (flame_in_chromium.sh). Usage: flame_page OUT.html */
#include <stdio.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "report/html_flame.h"

#include "flame_fixture.h"

/* As the HTML report's page: nothing external may load, and the one script marks the
 * page ready for render_in_chromium.sh. */
static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\"/>\n"
    "<title>flame graph</title>\n</head>\n<body>\n";
static const char page_end[] =
    "<script>document.body.dataset.ready = \"yes\";</script>\n</body>\n</html>\n";

int main(int argc, char **argv)
{
    strbuf page = STRBUF_INIT;
    verdict_error err = {0};
    int status = 1;
    FILE *out = NULL;
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUT.html\n", argv[0]);
        return 2;
    }
    strbuf_append(&page, page_head);
    if (html_flame_graph_section(&page, "wall: B against A", flame_fixture, flame_fixture_n,
                                 &err) != 0) {
        fprintf(stderr, "%s: %s\n", argv[0], err.message);
        goto done;
    }
    strbuf_append(&page, page_end);
    out = fopen(argv[1], "w");
    if (out == NULL || strbuf_status(&page) != 0 || fputs(strbuf_text(&page), out) == EOF) {
        fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[1]);
        goto done;
    }
    status = 0;
done:
    if (out != NULL && fclose(out) != 0)
        status = 1;
    strbuf_free(&page);
    return status;
}
