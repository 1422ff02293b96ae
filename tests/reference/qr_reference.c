/* Independent reference for the quick-return linkage with an elastic rocker.
 *
 * Formulation (tests/reference/README.md): the rocker is a chain of planar ANCF cable
 * elements (nodal position r and slope r' = dr/dx, cubic Hermite in the material
 * coordinate x, constant consistent mass matrix, strain energy from the axial Green
 * strain and the exact curvature of the centre line); the crank, slider D, link BC and
 * ram E are rigid bodies in absolute coordinates (x, y, angle of the centre of mass);
 * the slider's material coordinate xi on the rocker is an extra (massless) unknown.
 * Time integration: generalized-alpha (Chung & Hulbert; Arnold & Bruls' index-3 form)
 * with full Newton on the positions and scaled Lagrange multipliers; the Newton
 * matrix is banded in the rocker's coordinates with a dense border (arrow_solve).
 *
 * Self-contained: libc, libm, and LAPACK's dsygv for the beam's eigenfrequency check.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern void dsygv_(const int *itype, const char *jobz, const char *uplo, const int *n,
                   double *a, const int *lda, double *b, const int *ldb, double *w,
                   double *work, const int *lwork, int *info, size_t ljobz, size_t luplo);

/* Solve A x = b in place for an "arrow" matrix (A n x n, row-major, destroyed; b becomes
 * x): its leading nb x nb block is banded with half-bandwidth kb and diagonally
 * dominated by the mass (eliminated without pivoting, band and trailing columns only);
 * the trailing n - nb rows and columns are dense (partial pivoting). Returns 1 if A is
 * singular. With nb = 0 it is plain Gaussian elimination with partial pivoting. */
static int arrow_solve(int n, int nb, int kb, double *A, double *b)
{
  for (int k = 0; k < nb; k++) {
    const double *rk = A + (size_t)k * n;
    double piv = rk[k];
    if (piv == 0) return 1;
    int bend = k + kb < nb - 1 ? k + kb : nb - 1;
    for (int i = k + 1; i < n; i++) {
      if (i > bend && i < nb) {
        i = nb - 1; /* skip to the trailing rows */
        continue;
      }
      double *ri = A + (size_t)i * n;
      double f = ri[k] / piv;
      if (f == 0) continue;
      for (int j = k + 1; j <= bend; j++) ri[j] -= f * rk[j];
      for (int j = nb; j < n; j++) ri[j] -= f * rk[j];
      b[i] -= f * b[k];
    }
  }
  for (int k = nb; k < n; k++) {
    int p = k;
    double amax = fabs(A[(size_t)k * n + k]);
    for (int i = k + 1; i < n; i++)
      if (fabs(A[(size_t)i * n + k]) > amax) {
        amax = fabs(A[(size_t)i * n + k]);
        p = i;
      }
    if (amax == 0) return 1;
    if (p != k) {
      for (int j = k; j < n; j++) {
        double t = A[(size_t)k * n + j];
        A[(size_t)k * n + j] = A[(size_t)p * n + j];
        A[(size_t)p * n + j] = t;
      }
      double t = b[k];
      b[k] = b[p];
      b[p] = t;
    }
    const double *rk = A + (size_t)k * n;
    double piv = rk[k];
    for (int i = k + 1; i < n; i++) {
      double *ri = A + (size_t)i * n;
      double f = ri[k] / piv;
      if (f == 0) continue;
      for (int j = k + 1; j < n; j++) ri[j] -= f * rk[j];
      b[i] -= f * b[k];
    }
  }
  for (int k = n - 1; k >= 0; k--) {
    const double *rk = A + (size_t)k * n;
    double acc = b[k];
    if (k < nb) {
      int bend = k + kb < nb - 1 ? k + kb : nb - 1;
      for (int j = k + 1; j <= bend; j++) acc -= rk[j] * b[j];
      for (int j = nb; j < n; j++) acc -= rk[j] * b[j];
    } else {
      for (int j = k + 1; j < n; j++) acc -= rk[j] * b[j];
    }
    b[k] = acc / rk[k];
  }
  return 0;
}

/* ---------------------------------------------------------------- model data */
typedef struct {
  int ne;          /* rocker elements */
  double L, Le;    /* rocker length, element length */
  double EA, EI, rhoA;
  double r, l3, h1, h2, mD, mE, g;
  double omega;
  int driven;      /* 1: crank angle = omega t; 0: crank free */
  int nr, nq, nc;  /* rocker coordinates, all coordinates, constraints */
  int bc, bd, bl, be, ix; /* first index of crank, slider D, link, ram E; xi */
  double *M;       /* nq x nq, row-major */
  double *fg;      /* gravity forces, nq */
} model_t;

static const double GX[5] = {0.0469100770306680, 0.2307653449471585, 0.5,
                             0.7692346550528415, 0.9530899229693320};
static const double GW[5] = {0.1184634425280945, 0.2393143352496832, 0.2844444444444444,
                             0.2393143352496832, 0.1184634425280945};

/* Hermite shape functions at s in [0,1] of an element of length le, and their first
 * and second derivatives with respect to the material coordinate x = s le. */
static void shape(double s, double le, double N[4], double D1[4], double D2[4])
{
  double s2 = s * s, s3 = s2 * s;
  N[0] = 1 - 3 * s2 + 2 * s3;
  N[1] = le * (s - 2 * s2 + s3);
  N[2] = 3 * s2 - 2 * s3;
  N[3] = le * (s3 - s2);
  D1[0] = (-6 * s + 6 * s2) / le;
  D1[1] = 1 - 4 * s + 3 * s2;
  D1[2] = (6 * s - 6 * s2) / le;
  D1[3] = -2 * s + 3 * s2;
  D2[0] = (-6 + 12 * s) / (le * le);
  D2[1] = (-4 + 6 * s) / le;
  D2[2] = (6 - 12 * s) / (le * le);
  D2[3] = (-2 + 6 * s) / le;
}

/* element and local coordinate of material point x */
static int locate(const model_t *m, double x, double *s)
{
  int e = (int)floor(x / m->Le);
  if (e < 0) e = 0;
  if (e > m->ne - 1) e = m->ne - 1;
  *s = x / m->Le - e;
  return e;
}

/* position, slope and second derivative of the rocker's centre line at x */
static void centre(const model_t *m, const double *q, double x, double r[2], double r1[2],
                   double r2[2])
{
  double s, N[4], D1[4], D2[4];
  int e = locate(m, x, &s);
  shape(s, m->Le, N, D1, D2);
  const double *qe = q + 4 * e;
  for (int c = 0; c < 2; c++) {
    r[c] = r1[c] = r2[c] = 0;
    for (int k = 0; k < 4; k++) {
      r[c] += N[k] * qe[2 * k + c];
      r1[c] += D1[k] * qe[2 * k + c];
      r2[c] += D2[k] * qe[2 * k + c];
    }
  }
}

static void *xcalloc(size_t n, size_t sz)
{
  void *p = calloc(n, sz);
  if (!p) {
    fprintf(stderr, "qr_reference: out of memory\n");
    exit(2);
  }
  return p;
}

static void model_init(model_t *m, int ne, double omega, int driven)
{
  const double d = 0.012, E = 200e9, rho = 7800, pi = acos(-1.0);
  m->ne = ne;
  m->L = 0.6;
  m->Le = m->L / ne;
  m->EA = E * pi * d * d / 4;
  m->EI = E * pi * pow(d, 4) / 64;
  m->rhoA = rho * pi * d * d / 4;
  m->r = 0.15;
  m->l3 = 0.5;
  m->h1 = 0.3;
  m->h2 = 0.3;
  m->mD = 0.2;
  m->mE = 0.5;
  m->g = 9.81;
  m->omega = omega;
  m->driven = driven;
  m->nr = 4 * (ne + 1);
  m->bc = m->nr;
  m->bd = m->nr + 3;
  m->bl = m->nr + 6;
  m->be = m->nr + 9;
  m->ix = m->nr + 12;
  m->nq = m->nr + 13;
  m->nc = driven ? 16 : 15;
  int nq = m->nq;
  m->M = xcalloc((size_t)nq * nq, sizeof(double));
  m->fg = xcalloc((size_t)nq, sizeof(double));
  /* rocker: consistent mass and gravity */
  for (int e = 0; e < ne; e++) {
    for (int gp = 0; gp < 5; gp++) {
      double N[4], D1[4], D2[4], w = GW[gp] * m->Le;
      shape(GX[gp], m->Le, N, D1, D2);
      for (int k = 0; k < 4; k++) {
        for (int l = 0; l < 4; l++)
          for (int c = 0; c < 2; c++)
            m->M[(size_t)(4 * e + 2 * k + c) * nq + 4 * e + 2 * l + c] +=
                w * m->rhoA * N[k] * N[l];
        m->fg[4 * e + 2 * k + 1] -= w * m->rhoA * m->g * N[k];
      }
    }
  }
  /* rigid bodies: mass, mass, inertia about the centre of mass */
  double mc = m->rhoA * m->r, ml = m->rhoA * m->l3;
  double mass[4] = {mc, m->mD, ml, m->mE};
  double J[4] = {mc * m->r * m->r / 12, m->mD * (0.04 * 0.04 + 0.02 * 0.02) / 12,
                 ml * m->l3 * m->l3 / 12, m->mE * (0.1 * 0.1 + 0.05 * 0.05) / 12};
  for (int b = 0; b < 4; b++) {
    int i = m->nr + 3 * b;
    m->M[(size_t)i * nq + i] = mass[b];
    m->M[(size_t)(i + 1) * nq + i + 1] = mass[b];
    m->M[(size_t)(i + 2) * nq + i + 2] = J[b];
    m->fg[i + 1] = -mass[b] * m->g;
  }
}

/* ------------------------------------------------------------ elastic forces */
/* Strain energy density W(a, b) of a = r', b = r'':
 *   W = EA/2 eps^2 + EI/2 kappa^2, eps = (a.a - 1)/2, kappa = (a x b)/|a|^3.
 * Gradient g (4) and Hessian H (4x4) in z = (a1, a2, b1, b2). */
static double density(const model_t *m, const double a[2], const double b[2], double g[4],
                      double H[16])
{
  double s = a[0] * a[0] + a[1] * a[1];
  double eps = 0.5 * (s - 1);
  double c = a[0] * b[1] - a[1] * b[0];
  double p = pow(s, -1.5), p5 = pow(s, -2.5), p7 = pow(s, -3.5);
  double kap = c * p;
  double dc[4] = {b[1], -b[0], -a[1], a[0]};
  double dp[4] = {-3 * p5 * a[0], -3 * p5 * a[1], 0, 0};
  double dk[4];
  for (int i = 0; i < 4; i++) dk[i] = p * dc[i] + c * dp[i];
  double W = 0.5 * m->EA * eps * eps + 0.5 * m->EI * kap * kap;
  if (g) {
    for (int i = 0; i < 4; i++) g[i] = m->EI * kap * dk[i];
    g[0] += m->EA * eps * a[0];
    g[1] += m->EA * eps * a[1];
  }
  if (H) {
    double d2c[16] = {0}, d2p[16] = {0}, d2k[16];
    d2c[0 * 4 + 3] = d2c[3 * 4 + 0] = 1;
    d2c[1 * 4 + 2] = d2c[2 * 4 + 1] = -1;
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++)
        d2p[i * 4 + j] = (i == j ? -3 * p5 : 0) + 15 * p7 * a[i] * a[j];
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) {
        d2k[i * 4 + j] = p * d2c[i * 4 + j] + dc[i] * dp[j] + dp[i] * dc[j] + c * d2p[i * 4 + j];
        H[i * 4 + j] = m->EI * (dk[i] * dk[j] + kap * d2k[i * 4 + j]);
      }
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++)
        H[i * 4 + j] += m->EA * (a[i] * a[j] + (i == j ? eps : 0));
  }
  return W;
}

/* internal forces F (nq, added), tangent K (nq x nq, added, scaled by kscale; NULL:
 * none); returns the strain energy */
static double elastic(const model_t *m, const double *q, double *F, double *K, double kscale)
{
  double U = 0;
  int nq = m->nq;
  for (int e = 0; e < m->ne; e++) {
    const double *qe = q + 4 * e;
    for (int gp = 0; gp < 5; gp++) {
      double N[4], D1[4], D2[4], a[2] = {0, 0}, b[2] = {0, 0}, g[4], H[16];
      double w = GW[gp] * m->Le;
      shape(GX[gp], m->Le, N, D1, D2);
      for (int k = 0; k < 4; k++)
        for (int c = 0; c < 2; c++) {
          a[c] += D1[k] * qe[2 * k + c];
          b[c] += D2[k] * qe[2 * k + c];
        }
      U += w * density(m, a, b, g, K ? H : NULL);
      /* d(a_c)/d(qe[2k+c]) = D1[k], d(b_c)/d(qe[2k+c]) = D2[k] */
      for (int k = 0; k < 4; k++)
        for (int c = 0; c < 2; c++)
          F[4 * e + 2 * k + c] += w * (D1[k] * g[c] + D2[k] * g[2 + c]);
      if (!K) continue;
      for (int k = 0; k < 4; k++)
        for (int c = 0; c < 2; c++)
          for (int l = 0; l < 4; l++)
            for (int d = 0; d < 2; d++) {
              double h = D1[k] * D1[l] * H[c * 4 + d] + D1[k] * D2[l] * H[c * 4 + 2 + d] +
                         D2[k] * D1[l] * H[(2 + c) * 4 + d] +
                         D2[k] * D2[l] * H[(2 + c) * 4 + 2 + d];
              K[(size_t)(4 * e + 2 * k + c) * nq + 4 * e + 2 * l + d] += kscale * w * h;
            }
    }
  }
  return U;
}

/* --------------------------------------------------------------- constraints */
/* Phi (nc) and its Jacobian J (nc x nq, row-major; NULL: not wanted) at time t. */
static void constraints(const model_t *m, const double *q, double t, double *Phi, double *J)
{
  int nq = m->nq, row = 0;
  const int bc = m->bc, bd = m->bd, bl = m->bl, be = m->be, ix = m->ix;
  const double hr = 0.5 * m->r, hl = 0.5 * m->l3;
  const double cc = cos(q[bc + 2]), sc = sin(q[bc + 2]);
  const double cd = cos(q[bd + 2]), sd = sin(q[bd + 2]);
  const double cl = cos(q[bl + 2]), sl = sin(q[bl + 2]);
  const int nN = 4 * m->ne; /* last node's first index */
  if (J) memset(J, 0, sizeof(double) * (size_t)m->nc * nq);
#define JJ(i, j) J[(size_t)(i) * nq + (j)]
  /* O1: crank start at the origin */
  Phi[row] = q[bc] - hr * cc;
  if (J) { JJ(row, bc) = 1; JJ(row, bc + 2) = hr * sc; }
  row++;
  Phi[row] = q[bc + 1] - hr * sc;
  if (J) { JJ(row, bc + 1) = 1; JJ(row, bc + 2) = -hr * cc; }
  row++;
  /* motor */
  if (m->driven) {
    Phi[row] = q[bc + 2] - m->omega * t;
    if (J) JJ(row, bc + 2) = 1;
    row++;
  }
  /* A: crank end at the slider centre */
  Phi[row] = q[bc] + hr * cc - q[bd];
  if (J) { JJ(row, bc) = 1; JJ(row, bc + 2) = -hr * sc; JJ(row, bd) = -1; }
  row++;
  Phi[row] = q[bc + 1] + hr * sc - q[bd + 1];
  if (J) { JJ(row, bc + 1) = 1; JJ(row, bc + 2) = hr * cc; JJ(row, bd + 1) = -1; }
  row++;
  /* slider D on the rocker at material coordinate xi */
  {
    double s, N[4], D1[4], D2[4], r[2], r1[2], r2[2];
    int e = locate(m, q[ix], &s);
    shape(s, m->Le, N, D1, D2);
    centre(m, q, q[ix], r, r1, r2);
    for (int c = 0; c < 2; c++) {
      Phi[row + c] = r[c] - q[bd + c];
      if (J) {
        for (int k = 0; k < 4; k++) JJ(row + c, 4 * e + 2 * k + c) = N[k];
        JJ(row + c, ix) = r1[c];
        JJ(row + c, bd + c) = -1;
      }
    }
    row += 2;
    Phi[row] = cd * r1[1] - sd * r1[0];
    if (J) {
      for (int k = 0; k < 4; k++) {
        JJ(row, 4 * e + 2 * k) = -sd * D1[k];
        JJ(row, 4 * e + 2 * k + 1) = cd * D1[k];
      }
      JJ(row, ix) = cd * r2[1] - sd * r2[0];
      JJ(row, bd + 2) = -sd * r1[1] - cd * r1[0];
    }
    row++;
  }
  /* O2: rocker start */
  Phi[row] = q[0];
  if (J) JJ(row, 0) = 1;
  row++;
  Phi[row] = q[1] + m->h1;
  if (J) JJ(row, 1) = 1;
  row++;
  /* B: rocker end at the link's start */
  Phi[row] = q[nN] - (q[bl] - hl * cl);
  if (J) { JJ(row, nN) = 1; JJ(row, bl) = -1; JJ(row, bl + 2) = -hl * sl; }
  row++;
  Phi[row] = q[nN + 1] - (q[bl + 1] - hl * sl);
  if (J) { JJ(row, nN + 1) = 1; JJ(row, bl + 1) = -1; JJ(row, bl + 2) = hl * cl; }
  row++;
  /* C: link end at the ram centre */
  Phi[row] = q[bl] + hl * cl - q[be];
  if (J) { JJ(row, bl) = 1; JJ(row, bl + 2) = -hl * sl; JJ(row, be) = -1; }
  row++;
  Phi[row] = q[bl + 1] + hl * sl - q[be + 1];
  if (J) { JJ(row, bl + 1) = 1; JJ(row, bl + 2) = hl * cl; JJ(row, be + 1) = -1; }
  row++;
  /* ram guide: y = h2, no rotation */
  Phi[row] = q[be + 1] - m->h2;
  if (J) JJ(row, be + 1) = 1;
  row++;
  Phi[row] = q[be + 2];
  if (J) JJ(row, be + 2) = 1;
  row++;
#undef JJ
}

/* H += d(J(q)^T mu)/dq by central differences over the coordinates that enter J
 * (the angles, xi and the slider's element); the other coordinates enter Phi linearly */
static void constraint_hessian(const model_t *m, const double *q, const double *mu, double *H,
                               double *Jw, double *Phiw, double *qw)
{
  int nq = m->nq, nc = m->nc, cols[16], nco = 0;
  double s;
  int e = locate(m, q[m->ix], &s);
  cols[nco++] = m->bc + 2;
  cols[nco++] = m->bd + 2;
  cols[nco++] = m->bl + 2;
  cols[nco++] = m->ix;
  for (int k = 0; k < 8; k++) cols[nco++] = 4 * e + k;
  memcpy(qw, q, sizeof(double) * (size_t)nq);
  for (int n = 0; n < nco; n++) {
    int j = cols[n];
    double h = 1e-6 * (1 + fabs(q[j]));
    qw[j] = q[j] + h;
    constraints(m, qw, 0, Phiw, Jw);
    for (int i = 0; i < nq; i++) {
      double acc = 0;
      for (int c = 0; c < nc; c++) acc += Jw[(size_t)c * nq + i] * mu[c];
      H[(size_t)i * nq + j] += acc / (2 * h);
    }
    qw[j] = q[j] - h;
    constraints(m, qw, 0, Phiw, Jw);
    for (int i = 0; i < nq; i++) {
      double acc = 0;
      for (int c = 0; c < nc; c++) acc += Jw[(size_t)c * nq + i] * mu[c];
      H[(size_t)i * nq + j] -= acc / (2 * h);
    }
    qw[j] = q[j];
  }
}

/* ------------------------------------------------------------------ outputs */
/* signed distances of the 21 material points x_k = k L/20 from the chord through the
 * rocker's end points (positive to the left of O2 -> B); returns max |.| */
static double deflection(const model_t *m, const double *q, double v[21])
{
  const double *r0 = q, *rN = q + 4 * m->ne;
  double cx = rN[0] - r0[0], cy = rN[1] - r0[1], l = hypot(cx, cy), dmax = 0;
  cx /= l;
  cy /= l;
  for (int k = 0; k <= 20; k++) {
    double r[2], r1[2], r2[2];
    centre(m, q, m->L * k / 20.0, r, r1, r2);
    v[k] = cx * (r[1] - r0[1]) - cy * (r[0] - r0[0]);
    if (fabs(v[k]) > dmax) dmax = fabs(v[k]);
  }
  return dmax;
}

static double kinetic(const model_t *m, const double *v)
{
  double T = 0;
  int nq = m->nq;
  for (int i = 0; i < nq; i++) {
    double acc = 0;
    for (int j = 0; j < nq; j++) acc += m->M[(size_t)i * nq + j] * v[j];
    T += 0.5 * v[i] * acc;
  }
  return T;
}

static double potential(const model_t *m, const double *q)
{
  double V = 0;
  for (int i = 0; i < m->nq; i++) V -= m->fg[i] * q[i];
  return V;
}

/* ------------------------------------------------------------ initial state */
/* the rigid mechanism at crank angle th, crank speed w: positions and velocities */
static void rigid_start(const model_t *m, double th, double w, double *q, double *v)
{
  double Ax = m->r * cos(th), Ay = m->r * sin(th);
  double Avx = -m->r * w * sin(th), Avy = m->r * w * cos(th);
  double dx = Ax, dy = Ay + m->h1; /* O2 -> A */
  double psi = atan2(dy, dx), sD = hypot(dx, dy);
  double psid = (dx * Avy - dy * Avx) / (sD * sD), sDd = (dx * Avx + dy * Avy) / sD;
  double cp = cos(psi), sp = sin(psi);
  double Bx = m->L * cp, By = -m->h1 + m->L * sp;
  double Bvx = -m->L * psid * sp, Bvy = m->L * psid * cp;
  double phi = asin((m->h2 - By) / m->l3), phid = -Bvy / (m->l3 * cos(phi));
  double Cx = Bx + m->l3 * cos(phi), Cvx = Bvx - m->l3 * sin(phi) * phid;
  memset(q, 0, sizeof(double) * (size_t)m->nq);
  memset(v, 0, sizeof(double) * (size_t)m->nq);
  for (int n = 0; n <= m->ne; n++) {
    double x = m->Le * n;
    q[4 * n] = x * cp;
    q[4 * n + 1] = -m->h1 + x * sp;
    q[4 * n + 2] = cp;
    q[4 * n + 3] = sp;
    v[4 * n] = -x * psid * sp;
    v[4 * n + 1] = x * psid * cp;
    v[4 * n + 2] = -psid * sp;
    v[4 * n + 3] = psid * cp;
  }
  q[m->bc] = 0.5 * Ax;
  q[m->bc + 1] = 0.5 * Ay;
  q[m->bc + 2] = th;
  v[m->bc] = 0.5 * Avx;
  v[m->bc + 1] = 0.5 * Avy;
  v[m->bc + 2] = w;
  q[m->bd] = Ax;
  q[m->bd + 1] = Ay;
  q[m->bd + 2] = psi;
  v[m->bd] = Avx;
  v[m->bd + 1] = Avy;
  v[m->bd + 2] = psid;
  q[m->bl] = 0.5 * (Bx + Cx);
  q[m->bl + 1] = 0.5 * (By + m->h2);
  q[m->bl + 2] = phi;
  v[m->bl] = 0.5 * (Bvx + Cvx);
  v[m->bl + 1] = 0.5 * Bvy;
  v[m->bl + 2] = phid;
  q[m->be] = Cx;
  q[m->be + 1] = m->h2;
  v[m->be] = Cvx;
  q[m->ix] = sD;
  v[m->ix] = sDd;
}

/* dense KKT solve: [A J^T; J 0] x = b, A nq x nq row-major, J nc x nq row-major */
static int kkt_solve(const model_t *m, const double *A, const double *J, double *b,
                     double *work)
{
  int nq = m->nq, nc = m->nc, n = nq + nc;
  memset(work, 0, sizeof(double) * (size_t)n * n);
  for (int i = 0; i < nq; i++)
    memcpy(work + (size_t)i * n, A + (size_t)i * nq, sizeof(double) * (size_t)nq);
  for (int c = 0; c < nc; c++)
    for (int j = 0; j < nq; j++) {
      double x = J[(size_t)c * nq + j];
      work[(size_t)(nq + c) * n + j] = x; /* row nq+c, column j */
      work[(size_t)j * n + nq + c] = x;   /* row j, column nq+c */
    }
  return arrow_solve(n, m->nr, 7, work, b); /* element coupling: |i - j| <= 7 */
}

/* ------------------------------------------------------------------ the run */
typedef struct {
  int ne, every, driven;
  double omega, dt, rev, rho_inf, t_end, newton_tol;
  const char *out;
  double lo, hi, etol;
  int check_peak, check_energy, quiet;
} opts_t;

static int run(const opts_t *o)
{
  model_t m;
  model_init(&m, o->ne, o->omega, o->driven);
  const int nq = m.nq, nc = m.nc, n = nq + nc;
  double *q = xcalloc((size_t)nq, sizeof *q), *v = xcalloc((size_t)nq, sizeof *v);
  double *a = xcalloc((size_t)nq, sizeof *a), *ab = xcalloc((size_t)nq, sizeof *ab);
  double *qn = xcalloc((size_t)nq, sizeof *qn), *vn = xcalloc((size_t)nq, sizeof *vn);
  double *an = xcalloc((size_t)nq, sizeof *an), *abn = xcalloc((size_t)nq, sizeof *abn);
  double *mu = xcalloc((size_t)nc, sizeof *mu), *Phi = xcalloc((size_t)nc, sizeof *Phi);
  double *J = xcalloc((size_t)nc * nq, sizeof *J), *Jw = xcalloc((size_t)nc * nq, sizeof *Jw);
  double *A = xcalloc((size_t)nq * nq, sizeof *A), *F = xcalloc((size_t)nq, sizeof *F);
  double *b = xcalloc((size_t)n, sizeof *b), *work = xcalloc((size_t)n * n, sizeof *work);
  double *qw = xcalloc((size_t)nq, sizeof *qw), *Phiw = xcalloc((size_t)nc, sizeof *Phiw);
  const double pi = acos(-1.0), T1 = 2 * pi / o->omega;
  const double t_end = o->t_end > 0 ? o->t_end : o->rev * T1;
  const double h = o->dt;
  const long nsteps = lround(t_end / h);
  clock_t c0 = clock();

  rigid_start(&m, 0.0, o->omega, q, v);
  /* consistent acceleration: [M J^T; J 0] [a; lambda] = [fg - f_int; gamma],
   * gamma = -(d/dt J) v (the driver's Phi_t is constant) by central differences */
  {
    memset(F, 0, sizeof(double) * (size_t)nq);
    elastic(&m, q, F, NULL, 0);
    constraints(&m, q, 0, Phi, J);
    double eps = 1e-6, *gp = xcalloc((size_t)nc, sizeof(double));
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      for (int i = 0; i < nq; i++) qw[i] = q[i] + sgn * eps * v[i];
      constraints(&m, qw, 0, Phiw, Jw);
      for (int c = 0; c < nc; c++) {
        double acc = 0;
        for (int j = 0; j < nq; j++) acc += Jw[(size_t)c * nq + j] * v[j];
        gp[c] -= sgn * acc / (2 * eps);
      }
    }
    for (int i = 0; i < nq; i++) b[i] = m.fg[i] - F[i];
    for (int c = 0; c < nc; c++) b[nq + c] = gp[c];
    free(gp);
    if (kkt_solve(&m, m.M, J, b, work)) {
      fprintf(stderr, "qr_reference: singular start system\n");
      return 2;
    }
    memcpy(a, b, sizeof(double) * (size_t)nq);
    memcpy(ab, a, sizeof(double) * (size_t)nq);
  }
  /* generalized-alpha parameters */
  const double rho = o->rho_inf;
  const double am = (2 * rho - 1) / (rho + 1), af = rho / (rho + 1);
  const double gam = 0.5 + af - am, bet = 0.25 * (gam + 0.5) * (gam + 0.5);
  const double bp = (1 - am) / ((1 - af) * h * h * bet); /* d a_{n+1} / d q_{n+1} */
  double lam_drv = o->driven ? b[nq + 2] : 0;
  for (int c = 0; c < nc; c++) mu[c] = b[nq + c] / bp;

  FILE *fo = NULL;
  if (o->out) {
    fo = fopen(o->out, "w");
    if (!fo) {
      perror(o->out);
      return 2;
    }
    fprintf(fo, "# qr_reference: ANCF rocker, %d elements, dt %g, rho_inf %g, omega %g\n",
            o->ne, h, o->rho_inf, o->omega);
    fprintf(fo, "t,theta,d,xi,x_ram,T,V,U,W");
    for (int k = 0; k <= 20; k++) fprintf(fo, ",v%d", k);
    fprintf(fo, "\n");
  }
  double vdef[21], W = 0, E0 = 0, emax = 0, Tmax = 0, peak[3] = {0, 0, 0};
  long newton_total = 0;
  for (long step = 0;; step++) {
    double t = step * h;
    /* record */
    double d = deflection(&m, q, vdef);
    memset(F, 0, sizeof(double) * (size_t)nq);
    double U = elastic(&m, q, F, NULL, 0), T = kinetic(&m, v), V = potential(&m, q);
    double E = T + V + U - W;
    if (step == 0) E0 = E;
    if (fabs(E - E0) > emax) emax = fabs(E - E0);
    if (T > Tmax) Tmax = T;
    int revn = (int)floor(t / T1 + 1e-9);
    if (revn < 3 && d > peak[revn]) peak[revn] = d;
    if (revn >= 1 && revn < 3 && fabs(t - revn * T1) < 0.5 * h && d > peak[revn - 1])
      peak[revn - 1] = d; /* the revolution's end point belongs to it as well */
    if (fo && step % o->every == 0) {
      fprintf(fo, "%.9g,%.12g,%.9e,%.12g,%.12g,%.9e,%.9e,%.9e,%.9e", t,
              o->driven ? o->omega * t : q[m.bc + 2], d, q[m.ix], q[m.be], T, V, U, W);
      for (int k = 0; k <= 20; k++) fprintf(fo, ",%.9e", vdef[k]);
      fprintf(fo, "\n");
    }
    if (step >= nsteps) break;
    /* step: predictor a_{n+1} = a_n */
    memcpy(qn, q, sizeof(double) * (size_t)nq);
    memcpy(vn, v, sizeof(double) * (size_t)nq);
    memcpy(an, a, sizeof(double) * (size_t)nq);
    memcpy(abn, ab, sizeof(double) * (size_t)nq);
    for (int i = 0; i < nq; i++) {
      double abp = (af * an[i] - am * abn[i] + (1 - af) * an[i]) / (1 - am);
      q[i] = qn[i] + h * vn[i] + h * h * ((0.5 - bet) * abn[i] + bet * abp);
    }
    double tn1 = (step + 1) * h;
    int it, ok = 0;
    for (it = 0; it < 30; it++) {
      for (int i = 0; i < nq; i++) {
        double abar = (q[i] - qn[i] - h * vn[i] - h * h * (0.5 - bet) * abn[i]) / (h * h * bet);
        a[i] = ((1 - am) * abar + am * abn[i] - af * an[i]) / (1 - af);
      }
      memset(F, 0, sizeof(double) * (size_t)nq);
      memcpy(A, m.M, sizeof(double) * (size_t)nq * nq);
      elastic(&m, q, F, A, 1 / bp);
      constraints(&m, q, tn1, Phi, J);
      constraint_hessian(&m, q, mu, A, Jw, Phiw, qw);
      double rnorm = 0;
      for (int i = 0; i < nq; i++) {
        /* (M a + f_int - f_g) / bp + J^T mu, mu = lambda / bp */
        double acc = F[i] - m.fg[i];
        for (int j = 0; j < nq; j++) acc += m.M[(size_t)i * nq + j] * a[j];
        acc /= bp;
        for (int c = 0; c < nc; c++) acc += J[(size_t)c * nq + i] * mu[c];
        b[i] = -acc;
      }
      for (int c = 0; c < nc; c++) {
        b[nq + c] = -Phi[c];
        if (fabs(Phi[c]) > rnorm) rnorm = fabs(Phi[c]);
      }
      if (kkt_solve(&m, A, J, b, work)) {
        fprintf(stderr, "qr_reference: singular Newton matrix at t = %g\n", tn1);
        return 2;
      }
      double dn = 0;
      for (int i = 0; i < nq; i++) {
        q[i] += b[i];
        if (fabs(b[i]) > dn) dn = fabs(b[i]);
      }
      for (int c = 0; c < nc; c++) mu[c] += b[nq + c];
      newton_total++;
      if (q[m.ix] < 0 || q[m.ix] > m.L) {
        fprintf(stderr, "qr_reference: slider left the rocker at t = %g\n", tn1);
        return 2;
      }
      if (dn < o->newton_tol && rnorm < 1e-8) {
        ok = 1;
        break;
      }
    }
    if (!ok) {
      fprintf(stderr, "qr_reference: Newton did not converge at t = %g\n", tn1);
      return 2;
    }
    for (int i = 0; i < nq; i++) {
      double abar = (q[i] - qn[i] - h * vn[i] - h * h * (0.5 - bet) * abn[i]) / (h * h * bet);
      a[i] = ((1 - am) * abar + am * abn[i] - af * an[i]) / (1 - af);
      v[i] = vn[i] + h * ((1 - gam) * abn[i] + gam * abar);
      ab[i] = abar;
    }
    if (o->driven) {
      double lam = mu[2] * bp; /* multiplier of the motor row; its power is -lambda w */
      W += 0.5 * h * (-lam_drv * o->omega - lam * o->omega);
      lam_drv = lam;
    }
  }
  double cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
  if (fo) fclose(fo);
  printf("omega %g rad/s, %d elements, dt %g, rho_inf %g, t_end %.6g s, steps %ld, "
         "Newton iterations %ld (%.2f per step)\n",
         o->omega, o->ne, h, o->rho_inf, t_end, nsteps, newton_total,
         (double)newton_total / (double)(nsteps > 0 ? nsteps : 1));
  printf("peak d: revolution 1 %.6f mm, revolution 2 %.6f mm\n", 1e3 * peak[0],
         1e3 * peak[1]);
  printf("energy: max |T + V + U - W - E0| = %.3e J (max T %.4e J, ratio %.3e)\n", emax,
         Tmax, emax / Tmax);
  printf("cpu time %.2f s\n", cpu);
  int status = 0;
  if (o->check_peak) {
    double p = 1e3 * peak[1];
    if (!(p >= o->lo && p <= o->hi)) {
      printf("FAIL: peak %.6f mm outside [%g, %g] mm\n", p, o->lo, o->hi);
      status = 1;
    } else
      printf("ok: peak %.6f mm in [%g, %g] mm\n", p, o->lo, o->hi);
  }
  if (o->check_energy) {
    if (!(emax / Tmax <= o->etol)) {
      printf("FAIL: energy error ratio %.3e above %g\n", emax / Tmax, o->etol);
      status = 1;
    } else
      printf("ok: energy error ratio %.3e <= %g\n", emax / Tmax, o->etol);
  }
  free(q); free(v); free(a); free(ab); free(qn); free(vn); free(an); free(abn);
  free(mu); free(Phi); free(J); free(Jw); free(A); free(F); free(b); free(work);
  free(qw); free(Phiw); free(m.M); free(m.fg);
  return status;
}

/* ------------------------------------------------------- beam checks alone */
/* Cantilever of the rocker's section and length, clamped at x = 0 (r = 0, r' = (1, 0)),
 * under a tip force (0, -P), P = k EI / L^2, static, Newton with load steps; the axial
 * stiffness EA times ea_factor.
 * Prints the tip displacements (for the elastica comparison, tests/reference). */
static int cantilever(int ne, double k, double ea_factor)
{
  model_t m;
  model_init(&m, ne, 1, 1);
  m.EA *= ea_factor; /* > 1: towards the inextensible elastica */
  int nq = m.nq, nf = m.nr - 4;
  double P = k * m.EI / (m.L * m.L);
  double *q = xcalloc((size_t)nq, sizeof *q), *F = xcalloc((size_t)nq, sizeof *F);
  double *K = xcalloc((size_t)nq * nq, sizeof *K), *A = xcalloc((size_t)nf * nf, sizeof *A);
  double *b = xcalloc((size_t)nf, sizeof *b);
  for (int n = 0; n <= ne; n++) {
    q[4 * n] = m.Le * n;
    q[4 * n + 2] = 1;
  }
  const int nsteps = 20;
  for (int ls = 1; ls <= nsteps; ls++) {
    double Pl = P * ls / nsteps;
    int it;
    for (it = 0; it < 50; it++) {
      memset(F, 0, sizeof(double) * (size_t)nq);
      memset(K, 0, sizeof(double) * (size_t)nq * nq);
      elastic(&m, q, F, K, 1);
      F[4 * ne + 1] += Pl; /* F_int - F_ext */
      for (int i = 0; i < nf; i++) {
        b[i] = -F[4 + i];
        for (int j = 0; j < nf; j++) A[(size_t)i * nf + j] = K[(size_t)(4 + i) * nq + 4 + j];
      }
      if (arrow_solve(nf, 0, 0, A, b)) {
        fprintf(stderr, "cantilever: singular stiffness\n");
        return 2;
      }
      double dn = 0;
      for (int i = 0; i < nf; i++) {
        q[4 + i] += b[i];
        if (fabs(b[i]) > dn) dn = fabs(b[i]);
      }
      if (dn < 1e-13) break;
    }
    if (it == 50) {
      fprintf(stderr, "cantilever: Newton did not converge\n");
      return 2;
    }
  }
  printf("cantilever %d elements, PL^2/EI = %g: tip u/L = %.10f, v/L = %.10f\n", ne, k,
         (q[4 * ne] - m.L) / m.L, q[4 * ne + 1] / m.L);
  free(q); free(F); free(K); free(A); free(b); free(m.M); free(m.fg);
  return 0;
}

/* First bending frequency of the straight rocker pinned at both ends (r fixed at the
 * end nodes), from the tangent stiffness and the consistent mass (LAPACK dsygv). */
static int frequency(int ne)
{
  model_t m;
  model_init(&m, ne, 1, 1);
  int nq = m.nq, nr = m.nr, nf = 0, itype = 1, info, lwork = -1;
  int *map = xcalloc((size_t)nr, sizeof *map);
  for (int i = 0; i < nr; i++)
    if (!(i == 0 || i == 1 || i == 4 * ne || i == 4 * ne + 1)) map[nf++] = i;
  double *q = xcalloc((size_t)nq, sizeof *q), *F = xcalloc((size_t)nq, sizeof *F);
  double *K = xcalloc((size_t)nq * nq, sizeof *K);
  double *A = xcalloc((size_t)nf * nf, sizeof *A), *B = xcalloc((size_t)nf * nf, sizeof *B);
  double *w = xcalloc((size_t)nf, sizeof *w), wq;
  for (int n = 0; n <= ne; n++) {
    q[4 * n] = m.Le * n;
    q[4 * n + 2] = 1;
  }
  elastic(&m, q, F, K, 1);
  for (int i = 0; i < nf; i++)
    for (int j = 0; j < nf; j++) {
      A[(size_t)j * nf + i] = K[(size_t)map[i] * nq + map[j]];
      B[(size_t)j * nf + i] = m.M[(size_t)map[i] * nq + map[j]];
    }
  dsygv_(&itype, "N", "U", &nf, A, &nf, B, &nf, w, &wq, &lwork, &info, 1, 1);
  lwork = (int)wq;
  double *wk = xcalloc((size_t)lwork, sizeof *wk);
  dsygv_(&itype, "N", "U", &nf, A, &nf, B, &nf, w, wk, &lwork, &info, 1, 1);
  if (info) {
    fprintf(stderr, "frequency: dsygv info %d\n", info);
    return 2;
  }
  printf("pinned-pinned %d elements: omega1 = %.10f rad/s, omega2 = %.10f rad/s\n", ne,
         sqrt(w[0]), sqrt(w[1]));
  free(map); free(q); free(F); free(K); free(A); free(B); free(w); free(wk);
  free(m.M); free(m.fg);
  return 0;
}

static void usage(void)
{
  fputs("usage: qr_reference [--omega W] [--elements N] [--dt H] [--revolutions R]\n"
        "         [--rho-inf R] [--t-end T] [--free] [-o FILE.csv] [--every K]\n"
        "         [--expect-peak LO_MM HI_MM] [--expect-energy RATIO]\n"
        "       qr_reference --cantilever N K [EA_FACTOR]  (tip load P = K EI/L^2)\n"
        "       qr_reference --frequency N\n",
        stderr);
}

int main(int argc, char **argv)
{
  opts_t o = {.ne = 10, .every = 10, .driven = 1, .omega = 10, .dt = 1e-4, .rev = 2,
              .rho_inf = 0.9, .t_end = 0, .newton_tol = 1e-9, .out = NULL};
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    int more = argc - i - 1;
    if (!strcmp(s, "--omega") && more >= 1) o.omega = atof(argv[++i]);
    else if (!strcmp(s, "--elements") && more >= 1) o.ne = atoi(argv[++i]);
    else if (!strcmp(s, "--dt") && more >= 1) o.dt = atof(argv[++i]);
    else if (!strcmp(s, "--revolutions") && more >= 1) o.rev = atof(argv[++i]);
    else if (!strcmp(s, "--rho-inf") && more >= 1) o.rho_inf = atof(argv[++i]);
    else if (!strcmp(s, "--t-end") && more >= 1) o.t_end = atof(argv[++i]);
    else if (!strcmp(s, "--newton-tol") && more >= 1) o.newton_tol = atof(argv[++i]);
    else if (!strcmp(s, "--free")) o.driven = 0;
    else if (!strcmp(s, "-o") && more >= 1) o.out = argv[++i];
    else if (!strcmp(s, "--every") && more >= 1) o.every = atoi(argv[++i]);
    else if (!strcmp(s, "--expect-peak") && more >= 2) {
      o.check_peak = 1;
      o.lo = atof(argv[++i]);
      o.hi = atof(argv[++i]);
    } else if (!strcmp(s, "--expect-energy") && more >= 1) {
      o.check_energy = 1;
      o.etol = atof(argv[++i]);
    } else if (!strcmp(s, "--cantilever") && more >= 2) {
      int ne = atoi(argv[i + 1]);
      return cantilever(ne, atof(argv[i + 2]), more >= 3 ? atof(argv[i + 3]) : 1.0);
    } else if (!strcmp(s, "--frequency") && more >= 1) {
      return frequency(atoi(argv[i + 1]));
    } else {
      usage();
      return 2;
    }
  }
  if (o.ne < 1 || o.dt <= 0 || o.every < 1 || o.omega <= 0 || o.rho_inf < 0 ||
      o.rho_inf > 1) {
    usage();
    return 2;
  }
  return run(&o);
}
