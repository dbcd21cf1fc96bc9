/*
 * clscan test hooks: fault injection (see fault.h). Compiled into the library only with
 * CLSCAN_FAULT_INJECTION; the fault points cost nothing otherwise.
 */
#include "fault.h"

#include <pthread.h>
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

/* The build hook and its argument, set and read together. */
static pthread_mutex_t hook_lock = PTHREAD_MUTEX_INITIALIZER;
static void (*build_hook)(void *arg);
static void *build_hook_arg;
static atomic_ulong builds;       /* program builds started */
static atomic_int last_slot = -1; /* the slot of the most recent lease */
static atomic_int last_zeroed;    /* whether that lease zeroed its slot */

void clscan_test_set_build_hook(void (*hook)(void *arg), void *arg) {
  pthread_mutex_lock(&hook_lock);
  build_hook = hook;
  build_hook_arg = arg;
  pthread_mutex_unlock(&hook_lock);
}

unsigned long clscan_test_build_count(void) {
  return atomic_load(&builds);
}

int clscan_test_last_temp_slot(void) {
  return atomic_load(&last_slot);
}

int clscan_test_last_temp_zeroed(void) {
  return atomic_load(&last_zeroed);
}

void clscan__test_on_build(void) {
  atomic_fetch_add(&builds, 1);
  pthread_mutex_lock(&hook_lock);
  void (*hook)(void *) = build_hook;
  void *arg = build_hook_arg;
  pthread_mutex_unlock(&hook_lock);
  if (hook)
    hook(arg);
}

void clscan__test_on_slot(int slot, int zeroed) {
  atomic_store(&last_slot, slot);
  atomic_store(&last_zeroed, zeroed);
}
