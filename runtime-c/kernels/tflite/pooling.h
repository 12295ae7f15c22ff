/* The pooling call AVERAGE_POOL_2D and MAX_POOL_2D share (pooling.c). */
#ifndef ARENAPLAN_TFLITE_POOLING_H
#define ARENAPLAN_TFLITE_POOLING_H

#include <stddef.h>

#include "arenaplan/tflite.h"

/* Pooling of int8 (`width` 1) or int16 (`width` 2) values: average (`average` 1) or max, on
 * CMSIS-NN, after every argument is checked against the parameters. */
ap_status_t ap_tflite_pool(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, int average, size_t width);

#endif /* ARENAPLAN_TFLITE_POOLING_H */
