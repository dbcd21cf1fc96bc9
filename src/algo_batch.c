/*
 * clscan: the batched scans' simple kernel (cl/batch.cl), family CLSCAN__FAMILY_BATCH. It is not
 * a scan algorithm but the shape clscan_scan_batched() takes for rows with padding and for
 * columns (one work-item per line); rows without padding run as a segmented scan of any
 * algorithm. Its program is listed here so that the registry's program list
 * (clscan_test_program) covers cl/batch.cl; plan.c builds it (clscan__plan_prepare_batch) and
 * segments_api.c enqueues it.
 */
#include "internal.h"

const clscan__program clscan__batch_program = {.name = "batch", .files = {"common", "batch", NULL}};

const clscan__kernel_names clscan__batch_kernels = {
    .name = {[CLSCAN__BATCH_LINES] = "batch_lines"}};
