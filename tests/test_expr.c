/* Expression compiler (src/model/expr_*.c): values and exact first and second time
 * derivatives of every function and operator.
 *
 *   test_expr values   hand-computed (f, f', f'') at points on both sides of every switch
 *                      and at the switch itself (the branch that holds just after t)
 *   test_expr derivs   every one-argument function: f' and f'' against the analytic
 *                      derivative written as an expression (evaluated by value only),
 *                      and the chain rule on a curved argument against central differences
 *   test_expr errors   compile errors: kind, message and column
 *   test_expr compat   libmatheval's grammar and constants (the library used before)
 *   test_expr tables   table(): hand interpolation at and between knots, slopes, ends;
 *                      spline(): reproduces a cubic exactly (not-a-knot does, a natural
 *                      spline would not), C2 at the knots, sha256 of a known file
 *
 * Each check can fail: a wrong branch rule, a sign error in a derivative formula or a
 * wrong precedence changes one of the hand values by O(1). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "model/expr.h"
#include "model/table.h"

static int failures;

static const char *const k_names[] = {"a", "w"};
static const double k_values[] = {2.0, 3.0};

static fmb_expr_t *make(const char *text, fmb_expr_err_t *err)
{
    fmb_expr_env_t env = {k_names, k_values, 2, 1, NULL, NULL};
    return fmb_expr_compile(text, &env, err);
}

static double close_to(double got, double want, double tol)
{
    if (isinf(want)) return got == want;
    if (isnan(want)) return isnan(got);
    return fabs(got - want) <= tol * (1 + fabs(want));
}

/* expression, t, f, f', f'' */
static const struct {
    const char *e;
    double t, v, d1, d2;
} k_hand[] = {
    /* arithmetic, parameters, power */
    {"a*t^2 + w", 2, 11, 8, 4},
    {"t^3", 2, 8, 12, 12},
    {"pow(t, 3)", 2, 8, 12, 12},
    {"2^t", 3, 8, 8 * 0.69314718055994531, 8 * 0.69314718055994531 * 0.69314718055994531},
    {"t^t", 1, 1, 1, 2}, /* (t^t)' = t^t (ln t + 1), '' = t^t ((ln t + 1)^2 + 1/t) */
    {"1/t", 2, 0.5, -0.25, 0.25},
    {"t^0", 0, 1, 0, 0},
    {"t^1", 0, 0, 1, 0},
    /* min, max at, before and after the switch t = 2 */
    {"min(t, 2)", 1, 1, 1, 0},
    {"min(t, 2)", 3, 2, 0, 0},
    {"min(t, 2)", 2, 2, 0, 0}, /* after t = 2 the constant is smaller */
    {"min(2, 4 - t)", 2, 2, -1, 0},
    {"max(t, 2)", 1, 2, 0, 0},
    {"max(t, 2)", 2, 2, 1, 0},
    {"max(t^2, 1, 3 - t)", 0.5, 2.5, -1, 0},
    {"max(t^2, 1, 3 - t)", 2, 4, 4, 2},
    {"min(t^2, 1 + 0*t)", 1, 1, 0, 0},
    /* atan2 in all quadrants and across the branch cut at pi */
    {"atan2(1, -1)", 0, 2.35619449019234492, 0, 0},
    {"atan2(-1, -1)", 0, -2.35619449019234492, 0, 0},
    {"atan2(sin(t), cos(t))", 2.5, 2.5, 1, 0},
    {"atan2(sin(t), cos(t))", 3.5, 3.5 - 6.28318530717958648, 1, 0},
    {"atan2(a*sin(t), a*cos(t))", 1, 1, 1, 0},
    {"atan2(t, 1)", 1, 0.78539816339744831, 0.5, -0.5},
    /* mod (C fmod: the sign of x), floor, sign */
    {"mod(t, 2)", 3, 1, 1, 0},
    {"mod(t, 2)", -3, -1, 1, 0},
    {"mod(t, 2)", 2, 0, 1, 0},
    {"mod(5, t)", 2, 1, -2, 0},
    {"floor(t)", 2.5, 2, 0, 0},
    {"floor(t)", -0.5, -1, 0, 0},
    {"sign(t - 1)", 0.5, -1, 0, 0},
    {"sign(t - 1)", 1, 0, 0, 0},
    {"sign(t - 1)", 2, 1, 0, 0},
    /* abs: one-sided at the kink (right-hand in t) */
    {"abs(t - 1)", 0.5, 0.5, -1, 0},
    {"abs(t - 1)", 1, 0, 1, 0},
    {"abs(1 - t)", 1, 0, 1, 0},
    {"abs(t - 1)", 2, 1, 1, 0},
    {"abs((t - 1)^2)", 1, 0, 0, 2},
    /* comparisons and logic: 0 or 1, both sides and at the switch */
    {"t < 1", 0.5, 1, 0, 0},
    {"t < 1", 1, 0, 0, 0},
    {"t <= 1", 1, 1, 0, 0},
    {"t <= 1", 1.5, 0, 0, 0},
    {"t > 1", 1, 0, 0, 0},
    {"t > 1", 1.5, 1, 0, 0},
    {"t >= 1", 1, 1, 0, 0},
    {"t >= 1", 0.5, 0, 0, 0},
    {"t == 1", 1, 1, 0, 0},
    {"t == 1", 2, 0, 0, 0},
    {"t != 1", 1, 0, 0, 0},
    {"t != 1", 2, 1, 0, 0},
    {"t > 1 && t < 2", 1.5, 1, 0, 0},
    {"t > 1 && t < 2", 2.5, 0, 0, 0},
    {"t < 1 || t > 2", 0.5, 1, 0, 0},
    {"t < 1 || t > 2", 1.5, 0, 0, 0},
    {"!(t < 1)", 0.5, 0, 0, 0},
    {"!(t < 1)", 1.5, 1, 0, 0},
    {"!0", 0, 1, 0, 0},
    {"1 + 2*3 < 8 == 1", 0, 1, 0, 0}, /* (7 < 8) == 1 */
    {"2 < 3 < 1", 0, 0, 0, 0},        /* (2 < 3) < 1 */
    {"0 || 1 && 0", 0, 0, 0, 0},      /* && binds tighter: 0 || (1 && 0) */
    {"-t < 0", 1, 1, 0, 0},
    /* if: the selected branch with its derivatives */
    {"if(t < 1, t^2, 2*t - 1)", 0.5, 0.25, 1, 2},
    {"if(t < 1, t^2, 2*t - 1)", 1, 1, 2, 0},
    {"if(t < 1, t^2, 2*t - 1)", 1.5, 2, 2, 0},
    {"if(t <= 1, t^2, 2*t - 1)", 1, 1, 2, 2},
    {"if(t > 0, log(t), 0)", 0, 0, 0, 0}, /* the unused branch may be infinite */
    /* ADAMS step: cubic 3s^2 - 2s^3 between (x0, h0) and (x1, h1) */
    {"step(t, 0, 0, 1, 1)", -1, 0, 0, 0},
    {"step(t, 0, 0, 1, 1)", 0, 0, 0, 6}, /* right-hand: p''(0) = 6 */
    {"step(t, 0, 0, 1, 1)", 0.25, 0.15625, 1.125, 3},
    {"step(t, 0, 0, 1, 1)", 0.5, 0.5, 1.5, 0},
    {"step(t, 0, 0, 1, 1)", 0.75, 0.84375, 1.125, -3},
    {"step(t, 0, 0, 1, 1)", 1, 1, 0, 0},
    {"step(t, 0, 0, 1, 1)", 2, 1, 0, 0},
    {"step(t, 1, 2, 3, 6)", 1.5, 2.625, 2.25, 3},
    {"step(t, 1, 2, 3, 6)", 2, 4, 3, 0},
    {"step(2*t, 0, 0, 1, 1)", 0.125, 0.15625, 2.25, 12},
    {"step(t, 0, 1, 1, 0)", 0.25, 0.84375, -1.125, -3},
    /* quintic 10s^3 - 15s^4 + 6s^5 */
    {"step5(t, 0, 0, 1, 1)", -1, 0, 0, 0},
    {"step5(t, 0, 0, 1, 1)", 0, 0, 0, 0},
    {"step5(t, 0, 0, 1, 1)", 0.25, 0.103515625, 1.0546875, 5.625},
    {"step5(t, 0, 0, 1, 1)", 0.5, 0.5, 1.875, 0},
    {"step5(t, 0, 0, 1, 1)", 0.75, 0.896484375, 1.0546875, -5.625},
    {"step5(t, 0, 0, 1, 1)", 1, 1, 0, 0},
    {"step5(t, 0, 0, 1, 1)", 3, 1, 0, 0},
    {"step5(t, 1, 2, 3, 6)", 1.5, 2.4140625, 2.109375, 5.625},
    /* one-argument step (Heaviside), delta, nandelta: their former meaning */
    {"step(t)", -1, 0, 0, 0},
    {"step(t)", 0, 1, 0, 0},
    {"step(t)", 1, 1, 0, 0},
    {"delta(t)", 0, INFINITY, 0, 0},
    {"delta(t)", 1, 0, 0, 0},
    {"nandelta(t)", 1, 0, 0, 0},
    {"nandelta(t)", 0, NAN, 0, 0},
};

static void test_values(void)
{
    for (size_t k = 0; k < sizeof k_hand / sizeof k_hand[0]; k++) {
        fmb_expr_err_t err;
        fmb_expr_t *e = make(k_hand[k].e, &err);
        CHECK(e, "'%s' does not compile: %s", k_hand[k].e, err.msg);
        if (!e) continue;
        fmb_jet_t j = fmb_expr_jet(e, k_hand[k].t);
        CHECK(close_to(j.v, k_hand[k].v, 1e-14) && close_to(j.d1, k_hand[k].d1, 1e-14) &&
                  close_to(j.d2, k_hand[k].d2, 1e-14),
              "'%s' at t = %g: (%.17g, %.17g, %.17g), expected (%.17g, %.17g, %.17g)",
              k_hand[k].e, k_hand[k].t, j.v, j.d1, j.d2, k_hand[k].v, k_hand[k].d1, k_hand[k].d2);
        /* fmb_expr_eval gives the same numbers (shared evaluation per t) */
        CHECK(close_to(fmb_expr_eval(e, k_hand[k].t, 2), k_hand[k].d2, 1e-14) &&
                  close_to(fmb_expr_eval(e, k_hand[k].t, 0), k_hand[k].v, 1e-14) &&
                  close_to(fmb_expr_eval(e, k_hand[k].t, 1), k_hand[k].d1, 1e-14),
              "fmb_expr_eval('%s')", k_hand[k].e);
        fmb_expr_destroy(&e);
        CHECK(e == NULL, "destroy nulls");
    }
}

/* f, f' and f'' (analytic, as expressions) and points inside the domain. */
static const struct {
    const char *f, *d1, *d2;
    double t[3];
} k_deriv[] = {
    {"exp(t)", "exp(t)", "exp(t)", {-1, 0.5, 2}},
    {"log(t)", "1/t", "-1/t^2", {0.2, 1, 3}},
    {"sqrt(t)", "0.5/sqrt(t)", "-0.25*t^(-1.5)", {0.2, 1, 3}},
    {"sin(t)", "cos(t)", "-sin(t)", {-1, 0.5, 2}},
    {"cos(t)", "-sin(t)", "-cos(t)", {-1, 0.5, 2}},
    {"tan(t)", "1/cos(t)^2", "2*sin(t)/cos(t)^3", {-1, 0.5, 1.2}},
    {"cot(t)", "-1/sin(t)^2", "2*cos(t)/sin(t)^3", {-1, 0.5, 2}},
    {"sec(t)", "sin(t)/cos(t)^2", "(1 + sin(t)^2)/cos(t)^3", {-1, 0.5, 1.2}},
    {"csc(t)", "-cos(t)/sin(t)^2", "(1 + cos(t)^2)/sin(t)^3", {-1, 0.5, 2}},
    {"asin(t)", "1/sqrt(1 - t^2)", "t/(1 - t^2)^1.5", {-0.7, 0.1, 0.9}},
    {"acos(t)", "-1/sqrt(1 - t^2)", "-t/(1 - t^2)^1.5", {-0.7, 0.1, 0.9}},
    {"atan(t)", "1/(1 + t^2)", "-2*t/(1 + t^2)^2", {-2, 0.5, 3}},
    {"acot(t)", "-1/(1 + t^2)", "2*t/(1 + t^2)^2", {-2, 0.5, 3}},
    {"asec(t)", "1/(abs(t)*sqrt(t^2 - 1))", "-(2*t^2 - 1)/(t*abs(t)*(t^2 - 1)^1.5)", {-3, 1.5, 4}},
    {"acsc(t)", "-1/(abs(t)*sqrt(t^2 - 1))", "(2*t^2 - 1)/(t*abs(t)*(t^2 - 1)^1.5)", {-3, 1.5, 4}},
    {"sinh(t)", "cosh(t)", "sinh(t)", {-1, 0.5, 2}},
    {"cosh(t)", "sinh(t)", "cosh(t)", {-1, 0.5, 2}},
    {"tanh(t)", "1/cosh(t)^2", "-2*sinh(t)/cosh(t)^3", {-1, 0.5, 2}},
    {"coth(t)", "-1/sinh(t)^2", "2*cosh(t)/sinh(t)^3", {-1, 0.5, 2}},
    {"sech(t)", "-sinh(t)/cosh(t)^2", "(sinh(t)^2 - 1)/cosh(t)^3", {-1, 0.5, 2}},
    {"csch(t)", "-cosh(t)/sinh(t)^2", "(cosh(t)^2 + 1)/sinh(t)^3", {-1, 0.5, 2}},
    {"asinh(t)", "1/sqrt(t^2 + 1)", "-t/(t^2 + 1)^1.5", {-1, 0.5, 2}},
    {"acosh(t)", "1/sqrt(t^2 - 1)", "-t/(t^2 - 1)^1.5", {1.2, 2, 5}},
    {"atanh(t)", "1/(1 - t^2)", "2*t/(1 - t^2)^2", {-0.7, 0.1, 0.9}},
    {"acoth(t)", "1/(1 - t^2)", "2*t/(1 - t^2)^2", {-3, 1.5, 4}},
    {"asech(t)", "-1/(t*sqrt(1 - t^2))", "(1 - 2*t^2)/(t^2*(1 - t^2)^1.5)", {0.2, 0.5, 0.9}},
    {"acsch(t)", "-1/(abs(t)*sqrt(1 + t^2))", "(2*t^2 + 1)/(t*abs(t)*(1 + t^2)^1.5)", {-2, 0.5, 3}},
    {"erf(t)", "2_sqrtpi*exp(-t^2)", "-2*t*2_sqrtpi*exp(-t^2)", {-1, 0.5, 2}},
    {"abs(t)", "sign(t)", "0", {-1, 0.5, 2}},
    {"t^2.5", "2.5*t^1.5", "3.75*t^0.5", {0.3, 1, 2}},
    {"t^t", "t^t*(log(t) + 1)", "t^t*((log(t) + 1)^2 + 1/t)", {0.3, 1, 2}},
    {"atan2(t, 2)", "2/(4 + t^2)", "-4*t/(4 + t^2)^2", {-1, 0.5, 3}},
    {"atan2(2, t)", "-2/(4 + t^2)", "4*t/(4 + t^2)^2", {-1, 0.5, 3}},
    {"mod(t^2, 3)", "2*t", "2", {0.5, 1.5, 2}},
    {"step(t, 0, 1, 2, 3)", "6*(t/2)*(1 - t/2)", "3*(1 - t)", {0.3, 1, 1.7}},
    {"step5(t, 0, 1, 2, 3)", "30*(t/2)^2*(1 - t/2)^2", "30*(t/2)*(1 - t/2)*(1 - t)",
     {0.3, 1, 1.7}},
    {"min(t, t^2)", "if(t < 1, 2*t, 1)", "if(t < 1, 2, 0)", {0.5, 1.5, 3}},
    {"max(t, t^2)", "if(t < 1, 1, 2*t)", "if(t < 1, 0, 2)", {0.5, 1.5, 3}},
};

static double value(const char *text, double t)
{
    fmb_expr_err_t err;
    fmb_expr_t *e = make(text, &err);
    if (!e) {
        printf("FAIL: '%s' does not compile: %s\n", text, err.msg);
        failures++;
        return NAN;
    }
    double v = fmb_expr_jet(e, t).v;
    fmb_expr_destroy(&e);
    return v;
}

static void test_derivs(void)
{
    for (size_t k = 0; k < sizeof k_deriv / sizeof k_deriv[0]; k++) {
        for (int i = 0; i < 3; i++) {
            const double t = k_deriv[k].t[i];
            fmb_expr_err_t err;
            fmb_expr_t *e = make(k_deriv[k].f, &err);
            CHECK(e, "'%s': %s", k_deriv[k].f, err.msg);
            if (!e) continue;
            fmb_jet_t j = fmb_expr_jet(e, t);
            const double a1 = value(k_deriv[k].d1, t), a2 = value(k_deriv[k].d2, t);
            CHECK(close_to(j.d1, a1, 1e-12) && close_to(j.d2, a2, 1e-12),
                  "%s at t = %g: (f', f'') = (%.15g, %.15g), analytic (%.15g, %.15g)",
                  k_deriv[k].f, t, j.d1, j.d2, a1, a2);
            /* central differences of the value: error O(h^2) f''' and O(eps / h) */
            const double h = 1e-4 * (1 + fabs(t));
            const double fp = fmb_expr_jet(e, t + h).v, fm = fmb_expr_jet(e, t - h).v;
            const double c1 = (fp - fm) / (2 * h), c2 = (fp - 2 * j.v + fm) / (h * h);
            CHECK(close_to(j.d1, c1, 1e-6) && close_to(j.d2, c2, 1e-4),
                  "%s at t = %g: (f', f'') = (%.12g, %.12g), central differences (%.12g, %.12g)",
                  k_deriv[k].f, t, j.d1, j.d2, c1, c2);
            fmb_expr_destroy(&e);
        }
        /* chain rule: f(u(t)) with a curved u against central differences */
        char comp[200];
        const double t0 = k_deriv[k].t[1];
        snprintf(comp, sizeof comp, "%s", k_deriv[k].f);
        /* replace each t by u = t0 + 0.3 (t - 1) + 0.2 (t - 1)^2, so u(1) = t0 */
        char buf[600] = "";
        for (const char *p = comp; *p; p++) {
            if (*p == 't' && (p == comp || !((p[-1] >= 'a' && p[-1] <= 'z') || p[-1] == '_')) &&
                !((p[1] >= 'a' && p[1] <= 'z') || p[1] == '_' || p[1] == '2')) {
                char u[80];
                snprintf(u, sizeof u, "(%.17g + 0.3*(t - 1) + 0.2*(t - 1)^2)", t0);
                strncat(buf, u, sizeof buf - strlen(buf) - 1);
            } else {
                strncat(buf, (char[]){*p, 0}, sizeof buf - strlen(buf) - 1);
            }
        }
        fmb_expr_err_t err;
        fmb_expr_t *e = make(buf, &err);
        CHECK(e, "'%s': %s", buf, err.msg);
        if (!e) continue;
        const double h = 1e-4;
        fmb_jet_t j = fmb_expr_jet(e, 1.0);
        const double fp = fmb_expr_jet(e, 1 + h).v, fm = fmb_expr_jet(e, 1 - h).v;
        const double c1 = (fp - fm) / (2 * h), c2 = (fp - 2 * j.v + fm) / (h * h);
        CHECK(close_to(j.v, value(k_deriv[k].f, t0), 1e-14), "%s: u(1) != t0", buf);
        CHECK(close_to(j.d1, c1, 1e-6) && close_to(j.d2, c2, 1e-4),
              "%s at t = 1: (f', f'') = (%.12g, %.12g), central differences (%.12g, %.12g)", buf,
              j.d1, j.d2, c1, c2);
        fmb_expr_destroy(&e);
    }
}

static void expect_error(const char *text, fmb_expr_errkind_t kind, size_t col, const char *phrase)
{
    fmb_expr_err_t err;
    fmb_expr_t *e = make(text, &err);
    CHECK(!e, "'%s' compiled", text);
    fmb_expr_destroy(&e);
    CHECK(err.kind == kind, "'%s': error kind %d, expected %d (%s)", text, err.kind, kind, err.msg);
    CHECK(err.at + 1 == col, "'%s': error at column %zu, expected %zu (%s)", text, err.at + 1, col,
          err.msg);
    CHECK(strstr(err.msg, phrase), "'%s': message '%s' lacks '%s'", text, err.msg, phrase);
}

static void test_errors(void)
{
    expect_error("2*foo(t)", FMB_EXPR_ESYNTAX, 3, "unknown function 'foo'");
    expect_error("1 + atan2(t)", FMB_EXPR_ESYNTAX, 5, "atan2() takes 2 arguments, not 1");
    expect_error("if(t, 1)", FMB_EXPR_ESYNTAX, 1, "if() takes 3 arguments, not 2");
    expect_error("min(t)", FMB_EXPR_ESYNTAX, 1, "min() takes 2 to 64 arguments, not 1");
    expect_error("step(t, 0, 1)", FMB_EXPR_ESYNTAX, 1, "step() takes 1 argument (Heaviside) or 5");
    expect_error("step5(t)", FMB_EXPR_ESYNTAX, 1, "step5() takes 5 arguments, not 1");
    expect_error("sin(t, 1)", FMB_EXPR_ESYNTAX, 1, "sin() takes 1 argument, not 2");
    expect_error("sin + 1", FMB_EXPR_ESYNTAX, 1, "function 'sin' needs its arguments");
    expect_error("2*omega", FMB_EXPR_ENAME, 3, "unknown name 'omega'");
    expect_error("t = 1", FMB_EXPR_ESYNTAX, 3, "comparison is '=='");
    expect_error("t & 1", FMB_EXPR_ESYNTAX, 3, "'&&'");
    expect_error("(t + 1", FMB_EXPR_ESYNTAX, 7, "expected ')'");
    expect_error("t*", FMB_EXPR_ESYNTAX, 3, "unexpected end");
    expect_error("\"a.csv\"", FMB_EXPR_ESYNTAX, 1, "only allowed as the file of table()");
    expect_error("table(\"a.csv\", t)", FMB_EXPR_ETABLE, 1, "table() is not available here");
    expect_error("table(t, t)", FMB_EXPR_ESYNTAX, 7, "must be a file name in quotes");
    /* limits against hostile input */
    char deep[400] = "";
    for (int k = 0; k < 101; k++)
        strcat(deep, "(");
    strcat(deep, "t");
    for (int k = 0; k < 101; k++)
        strcat(deep, ")");
    expect_error(deep, FMB_EXPR_ESYNTAX, 101, "nested deeper than 100 levels");
    char ops[900] = "t";
    for (int k = 0; k < 201; k++)
        strcat(ops, "+t");
    expect_error(ops, FMB_EXPR_ESYNTAX, 2 + 2 * 200, "more than 200 operators");
    /* a bad step range is reported at run time as NaN (non-finite: named by the caller) */
    fmb_expr_err_t err;
    fmb_expr_t *e = make("step(t, 1, 0, 1, 1)", &err);
    CHECK(e && isnan(fmb_expr_jet(e, 0.5).v), "step with x1 = x0 is not NaN");
    fmb_expr_destroy(&e);
    /* parameters and t cannot be shadowed by function names */
    CHECK(fmb_expr_reserved("min") && fmb_expr_reserved("pi_2") && fmb_expr_reserved("if") &&
              fmb_expr_reserved("t") && !fmb_expr_reserved("omega"),
          "reserved names");
}

static void test_compat(void)
{
    static const struct {
        const char *e;
        double v;
    } k[] = {
        {"-2^2", -4},
        {"2^3^2", 64},
        {"2^-3^2", 0.001953125},
        {"2^-1", 0.5},
        {"e", 2.7182818284590452},
        {"log2e", 1.4426950408889634},
        {"log10e", 0.43429448190325183},
        {"ln2", 0.69314718055994531},
        {"ln10", 2.3025850929940457},
        {"pi", 3.1415926535897932},
        {"pi_2", 1.5707963267948966},
        {"pi_4", 0.78539816339744831},
        {"1_pi", 0.31830988618379067},
        {"2_pi", 0.63661977236758134},
        {"2_sqrtpi", 1.1283791670955126},
        {"sqrt2", 1.4142135623730950},
        {"sqrt1_2", 0.70710678118654752},
        {"2 * 3 + 4 / 2 - 1", 7},
        {"1.5e1 + .5 + 2E-1", 15.7},
        {"acot(-2)", -0.46364760900080612},
        {"asec(-2)", 2.0943951023931957},
        {"acoth(2)", 0.54930614433405485},
        {"a*w", 6},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        double v = value(k[i].e, 0.0);
        CHECK(close_to(v, k[i].v, 1e-15), "'%s' = %.17g, expected %.17g", k[i].e, v, k[i].v);
    }
}


static const fmb_table_t *write_table(const char *dir, const char *name, const char *text,
                                      int spline, fmb_tableset_t *set)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return NULL;
    fputs(text, f);
    fclose(f);
    char msg[400];
    const fmb_table_t *tb = fmb_tableset_get(set, name, spline, msg, sizeof msg);
    CHECK(tb, "%s: %s", name, msg);
    return tb;
}

static fmb_jet_t at(const fmb_table_t *tb, double x, double xd, double xdd)
{
    return fmb_table_eval(tb, (fmb_jet_t){x, xd, xdd});
}

static void test_tables(void)
{
    char dir[] = "/tmp/fmb_test_expr_XXXXXX";
    if (!mkdtemp(dir)) {
        printf("FAIL: mkdtemp\n");
        failures++;
        return;
    }
    fmb_tableset_t *set = fmb_tableset_create(dir);
    /* knots (0, 1), (1, 3), (3, 2), (4, 2): slopes 2, -0.5, 0 */
    const char *lin_text = "x, y\n0, 1\n1, 3\n\n3, 2\n4, 2\n";
    const fmb_table_t *lin = write_table(dir, "lin.csv", lin_text, 0, set);
    if (lin) {
        static const struct {
            double x, xd, v, d1;
        } k[] = {
            {-1, 1, 1, 0},  {0, -1, 1, 0},   {0, 1, 1, 2},     {0.25, 1, 1.5, 2},
            {1, 1, 3, -0.5}, {1, -1, 3, -2}, {2, 2, 2.5, -1},  {3, 1, 2, 0},
            {3, -1, 2, 0.5}, {4, 1, 2, 0},   {10, 1, 2, 0},    {0.5, 0, 2, 0},
        };
        for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
            fmb_jet_t j = at(lin, k[i].x, k[i].xd, 0.7);
            /* second derivative of y(x(t)) = m x'' on a segment, 0 beyond the ends */
            const double m = k[i].xd != 0 ? k[i].d1 / k[i].xd : 2;
            const double d2 = (k[i].x < 0 || k[i].x > 4 || (k[i].x == 0 && k[i].xd < 0) ||
                               (k[i].x == 4 && k[i].xd > 0))
                                  ? 0
                                  : m * 0.7;
            CHECK(close_to(j.v, k[i].v, 1e-15) && close_to(j.d1, k[i].d1, 1e-15) &&
                      close_to(j.d2, d2, 1e-15),
                  "table at x = %g (x' = %g): (%g, %g, %g), expected (%g, %g, %g)", k[i].x,
                  k[i].xd, j.v, j.d1, j.d2, k[i].v, k[i].d1, d2);
        }
        /* sha256sum of the bytes written above */
        /* sha256sum of the bytes written above (computed with coreutils' sha256sum) */
        CHECK(!strcmp(fmb_table_sha256(lin),
                      "04738c6025b98c219d7eabbc3a2892b64209614df9c151c7d9f5c4638f1a1374"),
              "sha256 '%s'", fmb_table_sha256(lin));
    }
    /* not-a-knot reproduces a cubic: y = x^3 - 2x on uneven knots */
    const char *cub_text = "x, y\n-1, 1\n-0.5, 0.875\n0.2, -0.392\n1, -1\n1.7, 1.513\n3, 21\n";
    const fmb_table_t *cub = write_table(dir, "cub.csv", cub_text, 1, set);
    if (cub) {
        for (double x = -1; x < 3; x += 0.0625) { /* at x = 3 moving up: the constant beyond */
            fmb_jet_t j = at(cub, x, 1, 0);
            const double v = x * x * x - 2 * x, d1 = 3 * x * x - 2, d2 = 6 * x;
            CHECK(fabs(j.v - v) < 1e-12 && fabs(j.d1 - d1) < 1e-11 && fabs(j.d2 - d2) < 1e-10,
                  "spline of x^3 - 2x at %g: (%.15g, %.15g, %.15g), exact (%g, %g, %g)", x, j.v,
                  j.d1, j.d2, v, d1, d2);
        }
    }
    /* C2 at every knot of a spline through arbitrary data; three rows: the parabola */
    const fmb_table_t *any = write_table(dir, "any.csv", "x,y\n0,0\n1,2\n1.5,-1\n3,0.5\n4,4\n", 1, set);
    static const double knots[] = {1, 1.5, 3};
    for (int i = 0; any && i < 3; i++) {
        fmb_jet_t r = at(any, knots[i], 1, 0), l = at(any, knots[i], -1, 0);
        CHECK(fabs(r.d1 + l.d1) < 1e-12 && fabs(r.d2 - l.d2) < 1e-12,
              "spline C2 at x = %g: right (%g, %g), left (%g, %g)", knots[i], r.d1, r.d2, -l.d1,
              l.d2);
    }
    const fmb_table_t *par = write_table(dir, "par.csv", "x,y\n0,1\n1,2\n3,10\n", 1, set);
    for (double x = 0; par && x < 3; x += 0.25) { /* y = 1 + x^2 */
        fmb_jet_t j = at(par, x, 1, 0);
        CHECK(fabs(j.v - 1 - x * x) < 1e-13 && fabs(j.d1 - 2 * x) < 1e-13 && fabs(j.d2 - 2) < 1e-13,
              "3-row spline at %g: (%g, %g, %g)", x, j.v, j.d1, j.d2);
    }
    /* the same file as table and as spline: two entries; a second get is the same table */
    char msg[400];
    CHECK(fmb_tableset_get(set, "lin.csv", 0, msg, sizeof msg) == lin, "table read once");
    CHECK(fmb_tableset_count(set) == 4, "4 tables, not %d", fmb_tableset_count(set));
    /* a device is refused (reading /dev/zero would never end) */
    CHECK(!fmb_tableset_get(set, "/dev/zero", 0, msg, sizeof msg) &&
              strstr(msg, "not a regular file"),
          "/dev/zero: %s", msg);
    /* through an expression: table(...) of a function of t (chain rule) */
    fmb_params_t p = {0};
    fmb_params_set(&p, "s", 0.5);
    p.tables = set;
    fmb_expr_t *e = fmb_expr_create("table(\"lin.csv\", s*t^2)", &p, msg, sizeof msg);
    CHECK(e, "%s", msg);
    if (e) { /* x = 0.5 t^2 = 2 at t = 2 (slope -0.5): x' = t = 2, x'' = 1 */
        fmb_jet_t j = fmb_expr_jet(e, 2.0);
        CHECK(close_to(j.v, 2.5, 1e-15) && close_to(j.d1, -1, 1e-15) && close_to(j.d2, -0.5, 1e-15),
              "table of s t^2 at t = 2: (%g, %g, %g)", j.v, j.d1, j.d2);
    }
    fmb_expr_destroy(&e);
    fmb_params_free(&p); /* frees the table set */
    static const char *const files[] = {"lin.csv", "cub.csv", "any.csv", "par.csv"};
    for (int i = 0; i < 4; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        remove(path);
    }
    rmdir(dir);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "";
    if (!strcmp(which, "values")) test_values();
    else if (!strcmp(which, "derivs")) test_derivs();
    else if (!strcmp(which, "errors")) test_errors();
    else if (!strcmp(which, "compat")) test_compat();
    else if (!strcmp(which, "tables")) test_tables();
    else {
        printf("usage: test_expr values|derivs|errors|compat|tables\n");
        return 2;
    }
    if (failures) printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
