/*
 * clscan tests, sort: every key type in both directions on both algorithms, bit ranges, floats and
 * doubles with NaNs, infinities, both zeros and denormals, all-equal, sorted, reversed and few
 * distinct keys with sizes around the tiles up to 2^20, and keys whose high digits are equal,
 * whose passes Onesweep skips (test_types, test_ranges, test_floats, test_shapes, test_skips).
 */
#include "sort_fixture.h"

/* Every key type, ascending and descending, keys and index pairs, on both algorithms (the
 * direction alternates with the algorithm to keep builds few; each type gets both directions). */
void test_types(void **state) {
  (void)state;
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  for (size_t t = 0; t < TYPE_COUNT; t++) {
    for (int a = 0; a < na; a++) {
      for (int desc = 0; desc < 2; desc++) {
        if (na == 2 && desc != (int)((t + (size_t)a) % 2))
          continue;
        sort_case c = {.desc = {.key_type = all_types[t],
                                .descending = desc,
                                .value_size = 4,
                                .algorithm = algos[a]},
                       .g = GEN_RANDOM,
                       .n = 40000 + 17 * t};
        check(&c, tu_mix(tu_seed(), 100 * t + 10 * (size_t)a + (size_t)desc));
      }
    }
  }
}

/* Bit ranges, including a narrow one, one not a multiple of 8, and the top bits. */
void test_ranges(void **state) {
  (void)state;
  static const struct {
    clscan_type t;
    unsigned b, e;
    int desc;
  } r[] = {{CLSCAN_UINT32, 0, 12, 0}, {CLSCAN_UINT32, 4, 20, 1}, {CLSCAN_INT32, 24, 32, 0},
           {CLSCAN_UINT64, 3, 61, 0}, {CLSCAN_FLOAT, 16, 32, 1}, {CLSCAN_UINT8, 1, 2, 0}};
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
    sort_case c = {.desc = {.key_type = r[i].t,
                            .begin_bit = r[i].b,
                            .end_bit = r[i].e,
                            .descending = r[i].desc,
                            .value_size = 4,
                            .algorithm = algos[i % (size_t)na]},
                   .g = GEN_RANDOM,
                   .n = 30001};
    check(&c, tu_mix(tu_seed(), 200 + i));
  }
}

/* Floats and doubles with NaNs of both signs, infinities, both zeros and denormals. */
void test_floats(void **state) {
  (void)state;
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  for (int a = 0; a < na; a++) {
    for (int t = 0; t < 2; t++) {
      sort_case c = {.desc = {.key_type = t ? CLSCAN_DOUBLE : CLSCAN_FLOAT,
                              .descending = a,
                              .value_size = 4,
                              .algorithm = algos[a]},
                     .g = GEN_SPECIAL,
                     .n = 5000};
      check(&c, tu_mix(tu_seed(), 300 + 2 * (size_t)a + (size_t)t));
    }
  }
  // The order itself, on fixed values: -NaN < -inf < -1 < -0.0 < +0.0 < 1 < +inf < +NaN.
  const uint32_t order[] = {0xffc00000u, 0xff800000u, 0xbf800000u, 0x80000000u,
                            0x00000000u, 0x3f800000u, 0x7f800000u, 0x7fc00000u};
  uint32_t keys[8];
  for (int i = 0; i < 8; i++)
    keys[i] = order[(i * 5) % 8];
  clscan_sort_desc d = {.key_type = CLSCAN_FLOAT};
  assert_int_equal(clscan_sort_host(tu_context(), &d, keys, NULL, 8), CLSCAN_SUCCESS);
  assert_memory_equal(keys, order, sizeof order);
}

/* All-equal, sorted, reversed and few distinct keys; sizes around tile boundaries. */
void test_shapes(void **state) {
  (void)state;
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  const gen gens[] = {GEN_EQUAL, GEN_SORTED, GEN_REVERSED, GEN_FEW};
  for (int a = 0; a < na; a++) {
    for (size_t g = 0; g < 4; g++) {
      sort_case c = {.desc = {.key_type = CLSCAN_UINT32, .value_size = 4, .algorithm = algos[a]},
                     .g = gens[g],
                     .n = 50000};
      check(&c, tu_mix(tu_seed(), 400 + 10 * (size_t)a + g));
    }
    // Sizes around the CPU tile (16384 keys) and the GPU tiles (1024 and 4096 keys), on one plan.
    static const size_t sizes[] = {2,     3,     255,   1023,  1024,  1025,
                                   16383, 16384, 16385, 32768, 49153, 1u << 20};
    sort_case c = {.desc = {.key_type = CLSCAN_UINT32, .value_size = 4, .algorithm = algos[a]},
                   .g = GEN_RANDOM};
    run_sizes(&c, sizes, sizeof sizes / sizeof sizes[0], 450);
  }
}

/* Keys whose high digits are all equal: Onesweep skips those passes, so the keys end in the
 * caller's buffers or in the copies depending on how many ran; LSD runs every pass. */
void test_skips(void **state) {
  (void)state;
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  const gen gens[] = {GEN_LOW8, GEN_MID8, GEN_LOW16, GEN_LOW24};
  for (int a = 0; a < na; a++) {
    sort_case c = {.desc = {.key_type = CLSCAN_UINT32, .value_size = 4, .algorithm = algos[a]},
                   .n = 70000,
                   .keys_off = 1,
                   .values_off = 2};
    clscan_sort_plan *plan = NULL;
    assert_int_equal(clscan_sort_plan_create(tu_context(), &c.desc, &plan), CLSCAN_SUCCESS);
    for (size_t g = 0; g < 4; g++) {
      c.g = gens[g];
      run_case(plan, &c, tu_mix(tu_seed(), 900 + 10 * (size_t)a + g));
    }
    clscan_sort_plan_release(plan);
  }
}
