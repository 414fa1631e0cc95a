/* The SVG tests' reading of their output: parsed back with libxml2 (strictly: a document
 * that is not well-formed fails the test), elements found by name and class, numbers. */
#ifndef VERDICT_TESTS_SVG_XML_H
#define VERDICT_TESTS_SVG_XML_H

#include <stdbool.h>
#include <stddef.h>

#include <libxml/tree.h>

/* The document (free with xmlFreeDoc); fails the test when the text is not well-formed. */
xmlDocPtr svg_xml_parse(const char *text);
/* Whether the element's class attribute holds the word. */
bool svg_xml_has_class(xmlNodePtr node, const char *word);
/* Elements named `name` (NULL: any) with the class word (NULL: any), under node and its
 * following siblings; the first of them, or NULL. */
size_t svg_xml_count(xmlNodePtr node, const char *name, const char *class);
xmlNodePtr svg_xml_find(xmlNodePtr node, const char *name, const char *class);
/* The attribute as a number; fails the test when it is missing. */
double svg_xml_number(xmlNodePtr node, const char *name);

#endif
