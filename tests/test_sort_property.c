/*
 * clscan tests, sort: random sorts, plans and cases on them drawn from the suite's seed (any key
 * type, direction, value size, bit range, algorithm, shape and the fallback), for about a minute
 * (test_property, the CTest test sort.property; not in the default run).
 */
#include <stdio.h>

#include "sort_fixture.h"

/* ============================================================================================== */
/* Random cases                                                                                   */
/* ============================================================================================== */

/* Plans a property run draws its cases from (each is a build). */
#define PROPERTY_PLANS 10

/* What a property plan compiles: its descriptor, the shape (0 the device's, 1 the GPU shape, 2
 * the GPU shape's per-work-item ranking) and, for Onesweep, whether every third tile withholds
 * its publication (the decoupled fallback). */
typedef struct property_plan {
  clscan_sort_desc desc;
  int shape, withhold;
} property_plan;

/* Draws a plan: any key type, either direction, values of 0 to 12 bytes, the whole key or a bit
 * range, AUTO, LSD or Onesweep, a shape, the fallback. */
static property_plan draw_plan(uint64_t *r) {
  static const size_t value_sizes[] = {0, 0, 1, 2, 3, 4, 4, 8, 12};
  static const clscan_sort_algorithm algos[] = {CLSCAN_SORT_AUTO, CLSCAN_SORT_LSD,
                                                CLSCAN_SORT_ONESWEEP};
  property_plan p = {.desc = {.key_type = all_types[tu_draw(r, TYPE_COUNT)]}};
  p.desc.descending = (int)tu_draw(r, 2);
  p.desc.value_size = value_sizes[tu_draw(r, sizeof value_sizes / sizeof value_sizes[0])];
  const unsigned bits = 8 * (unsigned)clscan_type_size(p.desc.key_type);
  if (tu_draw(r, 4) == 0) {
    p.desc.begin_bit = (unsigned)tu_draw(r, bits);
    p.desc.end_bit = p.desc.begin_bit + 1 + (unsigned)tu_draw(r, bits - p.desc.begin_bit);
  }
  p.desc.algorithm = algos[tu_draw(r, 3)];
  p.shape = (int)tu_draw(r, 3);
  p.withhold = p.desc.algorithm == CLSCAN_SORT_ONESWEEP && tu_draw(r, 3) == 0;
  return p;
}

/* Draws a case on a plan: how keys are generated, n (mostly small, some to 300000), offsets, and
 * keys and values in one buffer. */
static sort_case draw_sort_case(const property_plan *p, uint64_t *r) {
  static const gen gens[] = {GEN_RANDOM,  GEN_RANDOM, GEN_FEW,  GEN_EQUAL, GEN_SORTED, GEN_REVERSED,
                             GEN_SPECIAL, GEN_LOW8,   GEN_MID8, GEN_LOW16, GEN_LOW24};
  sort_case c = {.desc = p->desc, .g = gens[tu_draw(r, sizeof gens / sizeof gens[0])]};
  if (c.g == GEN_SPECIAL && !is_float(c.desc.key_type))
    c.g = GEN_RANDOM;
  const size_t s = tu_draw(r, 10);
  c.n = s < 5 ? tu_draw(r, 3000) : s < 8 ? tu_draw(r, 70000) : tu_draw(r, 300000);
  c.keys_off = tu_draw(r, 3) == 0 ? tu_draw(r, 9) : 0;
  c.values_off = tu_draw(r, 3) == 0 ? tu_draw(r, 9) : 0;
  c.shared = c.desc.value_size && tu_draw(r, 6) == 0;
  return c;
}

/* Random sorts (the CTest test sort.property, `test_sort test_property`; not in the default
 * run): PROPERTY_PLANS plans drawn from the suite's seed (printed), then cases on them in turn,
 * 100 or 60 seconds' worth (tu_property_more()); a failure prints the case, and the suite's seed
 * (CLSCAN_TEST_SEED) repeats the run. */
void test_property(void **state) {
  (void)state;
  uint64_t r = tu_mix(tu_seed(), 0x5027);
  property_plan plans[PROPERTY_PLANS];
  for (size_t k = 0; k < PROPERTY_PLANS; k++) {
    plans[k] = draw_plan(&r);
    const clscan_sort_desc *d = &plans[k].desc;
    printf("  plan %zu: %s%s values %zu bits [%u,%u) algo %d shape %d withhold %d\n", k,
           clscan_type_name(d->key_type), d->descending ? " desc" : "", d->value_size, d->begin_bit,
           d->end_bit, (int)d->algorithm, plans[k].shape, plans[k].withhold);
  }
  size_t ran = 0;
  for (; tu_property_more(ran, 100, 60.0); ran++) {
    const property_plan *p = &plans[tu_draw(&r, PROPERTY_PLANS)];
    const sort_case c = draw_sort_case(p, &r);
    tu_env_saved cpu, classic, withhold;
    tu_env_set("CLSCAN_SINGLE_PASS_CPU", p->shape ? "0" : NULL, &cpu);
    tu_env_set("CLSCAN_SORT_CLASSIC", p->shape == 2 ? "1" : NULL, &classic);
    tu_env_set("CLSCAN_TEST_WITHHOLD", p->withhold ? "3" : NULL, &withhold);
    check(&c, tu_mix(r, 1));
    tu_env_restore(&withhold);
    tu_env_restore(&classic);
    tu_env_restore(&cpu);
  }
  printf("  property: %zu sorts on %d plans in %.1f s\n", ran, PROPERTY_PLANS,
         tu_property_elapsed());
}
