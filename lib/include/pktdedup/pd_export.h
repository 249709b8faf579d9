/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PD_API marks the library's interface: the shared library is built with hidden
 * visibility, so only what these headers declare with PD_API is exported.
 */
#ifndef PKTDEDUP_PD_EXPORT_H
#define PKTDEDUP_PD_EXPORT_H

#ifndef PD_API
#if defined(__GNUC__) || defined(__clang__)
#define PD_API __attribute__((visibility("default")))
#else
#define PD_API
#endif
#endif

#endif
