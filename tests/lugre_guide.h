/* The model shared by test_friction_beam.c and test_static_friction.c: a steel bar
 * (E 200 GPa, rho 7800, d = 20 mm, 1 m, 10 elements, simply supported) pinned to the ground
 * at x = 0 and x = 1 m as the elastic guide of a block (the caller's body description) on a
 * LuGre slider (a 0.05, b 0.01, mu/mu0 given, sigma0 1.3e6, sigma1 350, sigma2 0,
 * vs 0.0009, gamma 2), gravity -g; optionally pushed along x at its centre by `force`
 * (an expression; NULL: no force). Damping: Rayleigh beta of the bar. Exits with a FAIL line
 * naming the cause when the model cannot be built. Each test keeps its own reference. */
#ifndef FMB_TESTS_LUGRE_GUIDE_H
#define FMB_TESTS_LUGRE_GUIDE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "flexmb/flexmb.h"

static inline fmb_model_t *lugre_guide_model(double g, double damping_beta, double mu, double mu0,
                                             const fmb_body_desc_t *block, const char *force,
                                             int *beam, int *body)
{
    fmb_model_t *m = fmb_model_create();
    fmb_model_set_gravity(m, 0, -g);
    double x[11];
    for (int k = 0; k <= 10; k++)
        x[k] = 0.1 * k;
    const double d = 0.02, pi = 3.14159265358979323846;
    fmb_beam_desc_t bd = {.name = "guide",
                          .E = 200e9,
                          .rho = 7800,
                          .area = pi * d * d / 4,
                          .inertia = pi * pow(d, 4) / 64,
                          .nnodes = 11,
                          .x = x,
                          .reference = FMB_BEAM_SIMPLY_SUPPORTED,
                          .damping_beta = damping_beta};
    const int ig = fmb_model_add_beam(m, &bd);
    const int ib = fmb_model_add_body(m, block);
    fmb_joint_desc_t p0 = {.name = "left", .type = "revolute", .body = {ig, 0}};
    fmb_joint_desc_t p1 = {.name = "right",
                           .type = "revolute",
                           .body = {ig, 0},
                           .point = {{1.0, 0}, {1.0, 0}}};
    fmb_joint_desc_t sl = {.name = "slider",
                           .type = "slider_beam",
                           .body = {ib, ig},
                           .friction = {.model = "lugre",
                                        .a = 0.05,
                                        .b = 0.01,
                                        .mu = mu,
                                        .mu0 = mu0,
                                        .sigma0 = 1.3e6,
                                        .sigma1 = 350,
                                        .sigma2 = 0,
                                        .vs = 0.0009,
                                        .gamma = 2}};
    fmb_force_desc_t f = {
        .name = "push", .type = "point", .body = {ib, 0}, .expr = {force, "0"}};
    if (ig < 0 || ib < 0 || fmb_model_add_joint(m, &p0) < 0 || fmb_model_add_joint(m, &p1) < 0 ||
        fmb_model_add_joint(m, &sl) < 0 || (force && fmb_model_add_force(m, &f) < 0)) {
        printf("model: %s\n", fmb_model_last_error(m));
        exit(1);
    }
    if (beam) *beam = ig;
    if (body) *body = ib;
    return m;
}

#endif
