/* SPDX-License-Identifier: MIT */
/* Releases of the driver and NCCL the paste names. */
#include "observe_internal.h"

void po_releases(struct octx *c)
{
	(void)c;
}
