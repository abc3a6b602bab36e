/* report_schema.c — the JSON Schema of --report json, compiled in from report.schema.json (the
 * Makefile turns it into report_schema.inc, one C string literal per line). */
#include "app.h"

const char report_json_schema[] =
#include "report_schema.inc"
	;
