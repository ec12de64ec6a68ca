/* Private helpers shared by the analysis and the renderers (not installed). */
#ifndef P2PS_ANALYSIS_INTERNAL_H
#define P2PS_ANALYSIS_INTERNAL_H

#include <stdarg.h>

#include "p2pscope/analysis.h"

/* Position of a generation name in release order (Kepler = 0 ... Blackwell = 8);
 * -1 for NULL or a name the table does not know. */
int p2ps_generation_rank(const char *generation);

/* Appends a reason with a formatted text (fix left empty); NULL when out of memory. */
struct p2ps_reason *p2ps_reasons_addv(struct p2ps_reasons *r, enum p2ps_reason_code code,
                                      enum p2ps_severity sev, int dev_idx, const char *fmt,
                                      va_list ap);

#endif
