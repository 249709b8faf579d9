/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The filters' names, the one list of them: below the variants, the planner and the
 * registry (filters.c), which all name filters in their messages.
 */
#include <string.h>

#include "filter_private.h"

static const char *const names[PD_FILTER_COUNT] = {
	[PD_FILTER_SBF] = "sbf",
	[PD_FILTER_RSBF] = "rsbf",
	[PD_FILTER_BSBF] = "bsbf",
	[PD_FILTER_BSBFSD] = "bsbfsd",
	[PD_FILTER_RLBSBF] = "rlbsbf",
	[PD_FILTER_QHT] = "qht",
	[PD_FILTER_QHTD] = "qhtd",
	[PD_FILTER_QQHTD] = "qqhtd",
	[PD_FILTER_BLOOM] = "bloom",
	[PD_FILTER_LRU] = "lru",
	[PD_FILTER_FPBUFFERING] = "fpbuffering",
	[PD_FILTER_TIMERBF] = "timerbf",
	[PD_FILTER_EXACT] = "exact",
	[PD_FILTER_QHTLRU] = "qhtlru",
};

const char *pd_filter_type_name(enum pd_filter_type type)
{
	return (unsigned)type < PD_FILTER_COUNT ? names[type] : NULL;
}

int pd_filter_type_parse(const char *name, enum pd_filter_type *type)
{
	if (name == NULL)
		return -1;
	for (unsigned i = 0; i < PD_FILTER_COUNT; i++) {
		if (strcmp(name, names[i]) == 0) {
			*type = (enum pd_filter_type)i;
			return 0;
		}
	}
	return -1;
}
