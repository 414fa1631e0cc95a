/* The SVG tests' reading of their output (see svg_xml.h): one copy of the parsing and
 * lookups the chart, forest plot and flame graph tests share. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <libxml/parser.h>
#include <stdlib.h>
#include <string.h>

#include "svg_xml.h"

xmlDocPtr svg_xml_parse(const char *text)
{
    xmlDocPtr doc = xmlReadMemory(text, (int)strlen(text), "test.svg", "UTF-8",
                                  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    assert_non_null(doc);
    return doc;
}

bool svg_xml_has_class(xmlNodePtr node, const char *word)
{
    xmlChar *class = xmlGetProp(node, (const xmlChar *)"class");
    bool found = false;
    size_t n = strlen(word);
    for (const char *p = (const char *)class; p && (p = strstr(p, word)) != NULL; p++)
        if ((p == (const char *)class || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            found = true;
    xmlFree(class);
    return found;
}

static bool matches(xmlNodePtr node, const char *name, const char *class)
{
    return node->type == XML_ELEMENT_NODE &&
           (name == NULL || strcmp((const char *)node->name, name) == 0) &&
           (class == NULL || svg_xml_has_class(node, class));
}

size_t svg_xml_count(xmlNodePtr node, const char *name, const char *class)
{
    size_t n = 0;
    for (xmlNodePtr c = node; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE)
            n += matches(c, name, class) + svg_xml_count(c->children, name, class);
    return n;
}

xmlNodePtr svg_xml_find(xmlNodePtr node, const char *name, const char *class)
{
    for (xmlNodePtr c = node; c; c = c->next) {
        if (matches(c, name, class))
            return c;
        xmlNodePtr inside = c->type == XML_ELEMENT_NODE ? svg_xml_find(c->children, name, class)
                                                         : NULL;
        if (inside)
            return inside;
    }
    return NULL;
}

double svg_xml_number(xmlNodePtr node, const char *name)
{
    xmlChar *value = xmlGetProp(node, (const xmlChar *)name);
    assert_non_null(value);
    double x = strtod((const char *)value, NULL);
    xmlFree(value);
    return x;
}
