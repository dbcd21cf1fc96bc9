/*
 * clscan test hooks: fault injection (see fault.h). Compiled into the library only with
 * CLSCAN_FAULT_INJECTION; the fault points cost nothing otherwise.
 */
#include "fault.h"

#include <stdatomic.h>

#include "internal.h"

static atomic_ulong armed;   /* the fault point to fail, 0 for none */
static atomic_ulong reached; /* fault points reached since the last arm */

void clscan_test_fault_arm(unsigned long k) {
  atomic_store(&reached, 0);
  atomic_store(&armed, k);
}

unsigned long clscan_test_fault_count(void) {
  return atomic_load(&reached);
}

int clscan__fault(void) {
  unsigned long n = atomic_fetch_add(&reached, 1) + 1;
  return n == atomic_load(&armed);
}
