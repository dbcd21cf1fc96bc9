/*
 * clscan tests, reduce: output types, user operators and types (non-commutative ones too) and maps,
 * in the small GPU-shaped geometry and both of the table's shapes, with init and offsets, and one
 * size through clscan_reduce_host (group user).
 */
#include "reduce_fixture.h"
#include "user_specs.h"

/* ============================================================================================== */
/* user                                                                                           */
/* ============================================================================================== */

static void test_user(void **state) {
  (void)state;
  const tu_spec *specs[] = {
      &uc_spec_affine,    &uc_spec_mat2,   &uc_spec_int2,   &uc_spec_max,    &uc_spec_sat,
      &uc_spec_u8_u32,    &uc_spec_u8_u64, &uc_spec_i8_min, &uc_spec_i8_max, &uc_spec_i32_float,
      &uc_spec_float_xor, &uc_spec_square, &uc_spec_argmin, &uc_spec_keep};
  const size_t sizes[] = {0, 1, 33, 257, 5000};
  for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      for (int s = 0; s < 3; s++) {
        reduce_case r = {.c = {.spec = specs[k], .n = sizes[i]}, .host = s == 2 && i == 2};
        r.tuning = s == 0 ? small_gpu() : (clscan_tuning){.single_pass_shape = shapes[s - 1]};
        r.c.in_off = i % 2 ? 3 : 0;
        r.c.out_off = i % 3;
        r.c.seed = tu_mix(tu_seed(), 3000 + k * 100 + i * 3 + (size_t)s);
        if (i % 2 == 0)
          tu_case_set_init(&r.c, tu_mix(r.c.seed, 9));
        expect_case(&r);
      }
    }
  }
}

/* ============================================================================================== */
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest reduce_user_tests[] = {
    cmocka_unit_test(test_user),
};
const size_t reduce_user_count = sizeof reduce_user_tests / sizeof reduce_user_tests[0];
