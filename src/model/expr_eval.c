/* Expression evaluation: a value and its first and second time derivatives in one pass
 * over the program (forward mode: each operation maps operand jets (u, u', u'') to the
 * result's jet by the chain rule).
 *
 *   one-argument g(u):  (g, g1 u', g2 u'^2 + g1 u'')     with g1 = g'(u), g2 = g''(u)
 *   u v:                (uv, u'v + uv', u''v + 2u'v' + uv'')
 *   w = u / v:          w' = (u' - w v') / v,  w'' = (u'' - 2 w' v' - w v'') / v
 *   u^c (c constant):   g1 = c u^(c-1), g2 = c (c-1) u^(c-2)
 *   u^v:                w = exp(v ln u): w' = w L', w'' = w (L'^2 + L''), L = v ln u
 *   atan2(y, x):        w' = (x y' - y x') / r^2,  r^2 = x^2 + y^2,
 *                       w'' = (x y'' - y x'') / r^2 - (x y' - y x') 2 (x x' + y y') / r^4
 *   step(x, x0, h0, x1, h1) = h0 + (h1 - h0) p(s), s = (x - x0) / (x1 - x0),
 *                       p = s^2 (3 - 2s) (cubic, C1) or s^3 (10 - 15s + 6s^2) (quintic, C2)
 *
 * Switches (abs, min, max, sign, floor, step, table knots) choose their branch by the
 * value; at the switching instant itself (equal values) by the direction the operands
 * move in (the sign of the first, then the second derivative of their difference), so
 * the derivatives are the one-sided ones of the branch that holds just after t.
 * Comparisons, &&, || and ! give 0 or 1 with zero derivatives; if(c, a, b) gives a with
 * its derivatives when c != 0, else b. A NaN operand of a comparison or of if's
 * condition gives NaN (so it is reported, not hidden by a branch). */
#include <math.h>
#include <stddef.h>

#include "model/expr_impl.h"

int fmb_expr_arity(const fmb_instr_t *in)
{
    switch (in->op) {
    case FMB_OP_CONST:
    case FMB_OP_T: return 0;
    case FMB_OP_NEG:
    case FMB_OP_NOT:
    case FMB_OP_FN:
    case FMB_OP_TABLE: return 1;
    case FMB_OP_MIN:
    case FMB_OP_MAX: return in->arg;
    case FMB_OP_IF: return 3;
    case FMB_OP_STEP3:
    case FMB_OP_STEP5: return 5;
    default: return 2;
    }
}

/* g(u), g'(u), g''(u) of the one-argument functions. */
static void fn_derivs(int fn, double u, double g[3])
{
    double a, b;
    switch (fn) {
    case FMB_FN_EXP: g[0] = g[1] = g[2] = exp(u); return;
    case FMB_FN_LOG:
        g[0] = log(u), g[1] = 1 / u, g[2] = -1 / (u * u);
        return;
    case FMB_FN_SQRT:
        a = sqrt(u);
        g[0] = a, g[1] = 0.5 / a, g[2] = -0.25 / (a * u);
        return;
    case FMB_FN_SIN: g[0] = sin(u), g[1] = cos(u), g[2] = -g[0]; return;
    case FMB_FN_COS: g[0] = cos(u), g[1] = -sin(u), g[2] = -g[0]; return;
    case FMB_FN_TAN:
        a = tan(u);
        g[0] = a, g[1] = 1 + a * a, g[2] = 2 * a * g[1];
        return;
    case FMB_FN_COT:
        a = 1 / tan(u);
        g[0] = a, g[1] = -(1 + a * a), g[2] = 2 * a * (1 + a * a);
        return;
    case FMB_FN_SEC:
        a = 1 / cos(u), b = tan(u);
        g[0] = a, g[1] = a * b, g[2] = a * (b * b + a * a);
        return;
    case FMB_FN_CSC:
        a = 1 / sin(u), b = 1 / tan(u);
        g[0] = a, g[1] = -a * b, g[2] = a * (b * b + a * a);
        return;
    case FMB_FN_ASIN:
    case FMB_FN_ACOS:
        a = 1 - u * u;
        g[1] = 1 / sqrt(a), g[2] = u / (a * sqrt(a));
        if (fn == FMB_FN_ACOS) g[1] = -g[1], g[2] = -g[2];
        g[0] = fn == FMB_FN_ASIN ? asin(u) : acos(u);
        return;
    case FMB_FN_ATAN:
    case FMB_FN_ACOT:
        a = 1 + u * u;
        g[0] = fn == FMB_FN_ATAN ? atan(u) : atan(1 / u);
        g[1] = 1 / a, g[2] = -2 * u / (a * a);
        if (fn == FMB_FN_ACOT) g[1] = -g[1], g[2] = -g[2];
        return;
    case FMB_FN_ASEC: /* acos(1/u): 1 / sqrt(u^4 - u^2) */
    case FMB_FN_ACSC: /* asin(1/u): the negative */
        a = u * u * u * u - u * u;
        g[1] = 1 / sqrt(a), g[2] = -(2 * u * u * u - u) / (a * sqrt(a));
        if (fn == FMB_FN_ACSC) g[1] = -g[1], g[2] = -g[2];
        g[0] = fn == FMB_FN_ASEC ? acos(1 / u) : asin(1 / u);
        return;
    case FMB_FN_SINH: g[0] = sinh(u), g[1] = cosh(u), g[2] = g[0]; return;
    case FMB_FN_COSH: g[0] = cosh(u), g[1] = sinh(u), g[2] = g[0]; return;
    case FMB_FN_TANH:
        a = tanh(u);
        g[0] = a, g[1] = 1 - a * a, g[2] = -2 * a * (1 - a * a);
        return;
    case FMB_FN_COTH:
        a = 1 / tanh(u);
        g[0] = a, g[1] = 1 - a * a, g[2] = -2 * a * (1 - a * a);
        return;
    case FMB_FN_SECH:
        a = 1 / cosh(u), b = tanh(u);
        g[0] = a, g[1] = -a * b, g[2] = a * (b * b - a * a);
        return;
    case FMB_FN_CSCH:
        a = 1 / sinh(u), b = 1 / tanh(u);
        g[0] = a, g[1] = -a * b, g[2] = a * (b * b + a * a);
        return;
    case FMB_FN_ASINH:
        a = u * u + 1;
        g[0] = asinh(u), g[1] = 1 / sqrt(a), g[2] = -u / (a * sqrt(a));
        return;
    case FMB_FN_ACOSH:
        a = u * u - 1;
        g[0] = acosh(u), g[1] = 1 / sqrt(a), g[2] = -u / (a * sqrt(a));
        return;
    case FMB_FN_ATANH:
    case FMB_FN_ACOTH:
        a = 1 - u * u;
        g[0] = fn == FMB_FN_ATANH ? atanh(u) : 0.5 * log((u + 1) / (u - 1));
        g[1] = 1 / a, g[2] = 2 * u / (a * a);
        return;
    case FMB_FN_ASECH: /* acosh(1/u) on (0, 1]: -1 / sqrt(u^2 - u^4) */
        a = u * u - u * u * u * u;
        g[0] = acosh(1 / u), g[1] = -1 / sqrt(a), g[2] = (u - 2 * u * u * u) / (a * sqrt(a));
        return;
    case FMB_FN_ACSCH: /* asinh(1/u): -1 / sqrt(u^2 + u^4) */
        a = u * u + u * u * u * u;
        g[0] = asinh(1 / u), g[1] = -1 / sqrt(a), g[2] = (u + 2 * u * u * u) / (a * sqrt(a));
        return;
    case FMB_FN_ERF:
        a = 1.12837916709551257390 * exp(-u * u);
        g[0] = erf(u), g[1] = a, g[2] = -2 * u * a;
        return;
    case FMB_FN_HEAVISIDE: g[0] = u < 0 ? 0.0 : 1.0, g[1] = g[2] = 0; break;
    case FMB_FN_DELTA: g[0] = u == 0 ? INFINITY : 0.0, g[1] = g[2] = 0; break;
    case FMB_FN_NANDELTA: g[0] = u == 0 ? NAN : 0.0, g[1] = g[2] = 0; break;
    case FMB_FN_FLOOR: g[0] = floor(u), g[1] = g[2] = 0; break;
    case FMB_FN_SIGN: g[0] = u > 0 ? 1.0 : u < 0 ? -1.0 : 0.0, g[1] = g[2] = 0; break;
    default: g[0] = g[1] = g[2] = NAN; break;
    }
    if (isnan(u)) g[0] = NAN;
}

/* Sign of a jet as a function of t just after t: of the value, else of the first,
 * else of the second derivative. */
static int jsign(fmb_jet_t a)
{
    if (a.v != 0) return a.v > 0 ? 1 : -1;
    if (a.d1 != 0) return a.d1 > 0 ? 1 : -1;
    if (a.d2 != 0) return a.d2 > 0 ? 1 : -1;
    return 0;
}

static fmb_jet_t jchain(fmb_jet_t u, double g0, double g1, double g2)
{
    /* skip zero factors so an infinite g1 or g2 times a zero rate stays 0 */
    fmb_jet_t r = {g0, 0.0, 0.0};
    if (u.d1 != 0) {
        r.d1 = g1 * u.d1;
        r.d2 = g2 * u.d1 * u.d1;
    }
    if (u.d2 != 0) r.d2 += g1 * u.d2;
    return r;
}

static fmb_jet_t jmul(fmb_jet_t u, fmb_jet_t v)
{
    return (fmb_jet_t){u.v * v.v, u.d1 * v.v + u.v * v.d1,
                       u.d2 * v.v + 2 * u.d1 * v.d1 + u.v * v.d2};
}

static fmb_jet_t jdiv(fmb_jet_t u, fmb_jet_t v)
{
    fmb_jet_t w;
    w.v = u.v / v.v;
    if (v.d1 == 0 && v.d2 == 0) {
        w.d1 = u.d1 / v.v;
        w.d2 = u.d2 / v.v;
    } else {
        w.d1 = (u.d1 - w.v * v.d1) / v.v;
        w.d2 = (u.d2 - 2 * w.d1 * v.d1 - w.v * v.d2) / v.v;
    }
    return w;
}

static fmb_jet_t jsub(fmb_jet_t u, fmb_jet_t v)
{
    return (fmb_jet_t){u.v - v.v, u.d1 - v.d1, u.d2 - v.d2};
}

static fmb_jet_t jpow(fmb_jet_t u, fmb_jet_t v)
{
    if (v.d1 == 0 && v.d2 == 0) {
        const double c = v.v;
        if (c >= 2 && c <= 16 && c == (int)c) { /* t^2, t^3: products, exact */
            double p = 1;
            for (int k = 2; k < (int)c; k++)
                p *= u.v;
            return jchain(u, p * u.v * u.v, c * p * u.v, c * (c - 1) * p);
        }
        if (u.v != 0 && isfinite(u.v)) { /* one pow: p = u^(c-2) */
            const double p = pow(u.v, c - 2);
            return jchain(u, p * u.v * u.v, c * p * u.v, c * (c - 1) * p);
        }
        const double g1 = c == 0 ? 0.0 : c * pow(u.v, c - 1);
        const double g2 = c == 0 || c == 1 ? 0.0 : c * (c - 1) * pow(u.v, c - 2);
        return jchain(u, pow(u.v, c), g1, g2);
    }
    /* w = exp(L), L = v ln u */
    const double w = pow(u.v, v.v), lu = log(u.v);
    const double L1 = v.d1 * lu + v.v * u.d1 / u.v;
    const double L2 =
        v.d2 * lu + 2 * v.d1 * u.d1 / u.v + v.v * (u.d2 / u.v - u.d1 * u.d1 / (u.v * u.v));
    return (fmb_jet_t){w, w * L1, w * (L1 * L1 + L2)};
}

static fmb_jet_t jstep(const fmb_jet_t *a, int quintic)
{
    /* a: x, x0, h0, x1, h1 */
    const fmb_jet_t x = a[0], x0 = a[1], h0 = a[2], x1 = a[3], h1 = a[4];
    if (!(x1.v > x0.v) || isnan(x.v)) return (fmb_jet_t){NAN, NAN, NAN};
    if (jsign(jsub(x, x0)) <= 0) return h0;
    if (jsign(jsub(x, x1)) >= 0) return h1;
    const fmb_jet_t s = jdiv(jsub(x, x0), jsub(x1, x0));
    const double q = s.v;
    fmb_jet_t p;
    if (quintic)
        p = jchain(s, q * q * q * (10 - 15 * q + 6 * q * q), 30 * q * q * (1 - q) * (1 - q),
                   60 * q * (1 - q) * (1 - 2 * q));
    else
        p = jchain(s, q * q * (3 - 2 * q), 6 * q * (1 - q), 6 - 12 * q);
    const fmb_jet_t dh = jsub(h1, h0), r = jmul(dh, p);
    return (fmb_jet_t){h0.v + r.v, h0.d1 + r.d1, h0.d2 + r.d2};
}

static fmb_jet_t jatan2(fmb_jet_t y, fmb_jet_t x)
{
    const double r2 = x.v * x.v + y.v * y.v;
    const double num = x.v * y.d1 - y.v * x.d1;
    fmb_jet_t w = {atan2(y.v, x.v), 0.0, 0.0};
    if (num != 0 || x.d2 != 0 || y.d2 != 0) {
        w.d1 = num / r2;
        w.d2 = (x.v * y.d2 - y.v * x.d2) / r2 - num * 2 * (x.v * x.d1 + y.v * y.d1) / (r2 * r2);
    }
    return w;
}

static fmb_jet_t jbool(int b, double x, double y)
{
    if (isnan(x) || isnan(y)) return (fmb_jet_t){NAN, 0.0, 0.0};
    return (fmb_jet_t){b ? 1.0 : 0.0, 0.0, 0.0};
}

void fmb_expr_apply(const fmb_instr_t *in, fmb_jet_t *a, double t)
{
    const fmb_jet_t u = a[0];
    const fmb_jet_t v = fmb_expr_arity(in) >= 2 ? a[1] : u; /* no read past one operand */
    double g[3];
    switch (in->op) {
    case FMB_OP_CONST: a[0] = (fmb_jet_t){in->c, 0.0, 0.0}; break;
    case FMB_OP_T: a[0] = (fmb_jet_t){t, 1.0, 0.0}; break;
    case FMB_OP_NEG: a[0] = (fmb_jet_t){-u.v, -u.d1, -u.d2}; break;
    case FMB_OP_NOT: a[0] = jbool(u.v == 0, u.v, 0); break;
    case FMB_OP_ADD: a[0] = (fmb_jet_t){u.v + v.v, u.d1 + v.d1, u.d2 + v.d2}; break;
    case FMB_OP_SUB: a[0] = jsub(u, v); break;
    case FMB_OP_MUL: a[0] = jmul(u, v); break;
    case FMB_OP_DIV: a[0] = jdiv(u, v); break;
    case FMB_OP_POW: a[0] = jpow(u, v); break;
    case FMB_OP_LT: a[0] = jbool(u.v < v.v, u.v, v.v); break;
    case FMB_OP_LE: a[0] = jbool(u.v <= v.v, u.v, v.v); break;
    case FMB_OP_GT: a[0] = jbool(u.v > v.v, u.v, v.v); break;
    case FMB_OP_GE: a[0] = jbool(u.v >= v.v, u.v, v.v); break;
    case FMB_OP_EQ: a[0] = jbool(u.v == v.v, u.v, v.v); break;
    case FMB_OP_NE: a[0] = jbool(u.v != v.v, u.v, v.v); break;
    case FMB_OP_AND: a[0] = jbool(u.v != 0 && v.v != 0, u.v, v.v); break;
    case FMB_OP_OR: a[0] = jbool(u.v != 0 || v.v != 0, u.v, v.v); break;
    case FMB_OP_FN:
        if (in->arg == FMB_FN_ABS) {
            const int s = jsign(u);
            a[0] = s < 0 ? (fmb_jet_t){-u.v, -u.d1, -u.d2} : s > 0 ? u : (fmb_jet_t){0, 0, 0};
            if (isnan(u.v)) a[0].v = NAN;
            break;
        }
        fn_derivs(in->arg, u.v, g);
        a[0] = jchain(u, g[0], g[1], g[2]);
        break;
    case FMB_OP_MIN:
    case FMB_OP_MAX: {
        fmb_jet_t best = a[0];
        int nan = isnan(best.v);
        for (int k = 1; k < in->arg; k++) {
            const int s = jsign(jsub(a[k], best));
            nan |= isnan(a[k].v);
            if (in->op == FMB_OP_MIN ? s < 0 : s > 0) best = a[k];
        }
        a[0] = best;
        if (nan) a[0].v = NAN;
        break;
    }
    case FMB_OP_ATAN2: a[0] = jatan2(u, v); break;
    case FMB_OP_MOD: {
        /* fmod: x - k y with k = trunc(x / y) constant between jumps */
        const double k = trunc(u.v / v.v);
        a[0] = (fmb_jet_t){fmod(u.v, v.v), u.d1 - k * v.d1, u.d2 - k * v.d2};
        break;
    }
    case FMB_OP_IF:
        a[0] = isnan(u.v) ? (fmb_jet_t){NAN, NAN, NAN} : u.v != 0 ? a[1] : a[2];
        break;
    case FMB_OP_STEP3: a[0] = jstep(a, 0); break;
    case FMB_OP_STEP5: a[0] = jstep(a, 1); break;
    case FMB_OP_TABLE: a[0] = fmb_table_eval(in->table, u); break;
    default: a[0] = (fmb_jet_t){NAN, NAN, NAN}; break;
    }
}

fmb_jet_t fmb_expr_jet(const fmb_expr_t *e, double t)
{
    fmb_jet_t *st = e->stack;
    int sp = 0;
    for (const fmb_instr_t *in = e->code, *end = e->code + e->ncode; in < end; in++) {
        switch (in->op) { /* the common cases inline */
        case FMB_OP_CONST: st[sp++] = (fmb_jet_t){in->c, 0.0, 0.0}; break;
        case FMB_OP_T: st[sp++] = (fmb_jet_t){t, 1.0, 0.0}; break;
        case FMB_OP_ADD:
            sp--;
            st[sp - 1].v += st[sp].v, st[sp - 1].d1 += st[sp].d1, st[sp - 1].d2 += st[sp].d2;
            break;
        case FMB_OP_MUL:
            sp--;
            st[sp - 1] = jmul(st[sp - 1], st[sp]);
            break;
        default: {
            const int k = fmb_expr_arity(in);
            sp -= k;
            fmb_expr_apply(in, st + sp, t);
            sp++;
        }
        }
    }
    return sp == 1 ? st[0] : (fmb_jet_t){NAN, NAN, NAN};
}
