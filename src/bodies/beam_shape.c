/*
 * Beam mesh and shape functions (the equations: beam.c's header, docs/theory.md section 7):
 * the element containing x, the Hermite functions and their derivatives, the element's
 * columns in the body's q, and the shape functions N of a body-frame point (x, y0).
 */
#include "bodies/beam_internal.h"

const double fmb_beam_gauss_x[4] = {-0.8611363115940526, -0.3399810435848563, 0.3399810435848563,
                                  0.8611363115940526};
const double fmb_beam_gauss_w[4] = {0.3478548451374538, 0.6521451548625461, 0.6521451548625461,
                                  0.3478548451374538};

int fmb_beam_element_at(const fmb_beam_t *bm, double x)
{
    /* binary search over element ends: largest e with x_e <= x, clamped to [0, ne-1] */
    int lo = 0, hi = bm->nnodes - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (bm->x[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void fmb_beam_hermite(const fmb_beam_t *bm, int e, double x, int d, double Hx[4])
{
    const double l = bm->x[e + 1] - bm->x[e], xi = (x - bm->x[e]) / l;
    const double x2 = xi * xi, x3 = x2 * xi;
    switch (d) {
    case 0:
        Hx[0] = 1 - 3 * x2 + 2 * x3, Hx[1] = l * (xi - 2 * x2 + x3);
        Hx[2] = 3 * x2 - 2 * x3, Hx[3] = l * (x3 - x2);
        break;
    case 1:
        Hx[0] = (-6 * xi + 6 * x2) / l, Hx[1] = 1 - 4 * xi + 3 * x2;
        Hx[2] = (6 * xi - 6 * x2) / l, Hx[3] = -2 * xi + 3 * x2;
        break;
    case 2:
        Hx[0] = (-6 + 12 * xi) / (l * l), Hx[1] = (-4 + 6 * xi) / l;
        Hx[2] = (6 - 12 * xi) / (l * l), Hx[3] = (-2 + 6 * xi) / l;
        break;
    default:
        Hx[0] = 12 / (l * l * l), Hx[1] = 6 / (l * l);
        Hx[2] = -12 / (l * l * l), Hx[3] = 6 / (l * l);
        break;
    }
}

void fmb_beam_hermite_all(const fmb_beam_t *bm, int e, double x, double H[4][4])
{
    /* fmb_beam_hermite's expressions for d = 0..3, with l, xi and its powers once */
    const double l = bm->x[e + 1] - bm->x[e], xi = (x - bm->x[e]) / l;
    const double x2 = xi * xi, x3 = x2 * xi;
    H[0][0] = 1 - 3 * x2 + 2 * x3, H[0][1] = l * (xi - 2 * x2 + x3);
    H[0][2] = 3 * x2 - 2 * x3, H[0][3] = l * (x3 - x2);
    H[1][0] = (-6 * xi + 6 * x2) / l, H[1][1] = 1 - 4 * xi + 3 * x2;
    H[1][2] = (6 * xi - 6 * x2) / l, H[1][3] = -2 * xi + 3 * x2;
    H[2][0] = (-6 + 12 * xi) / (l * l), H[2][1] = (-4 + 6 * xi) / l;
    H[2][2] = (6 - 12 * xi) / (l * l), H[2][3] = (-2 + 6 * xi) / l;
    H[3][0] = 12 / (l * l * l), H[3][1] = 6 / (l * l);
    H[3][2] = -12 / (l * l * l), H[3][3] = 6 / (l * l);
}

/* Columns (in the body's q) of element e's transverse dofs v1, phi1, v2, phi2 (-1 if
 * removed). */
void fmb_beam_vcols(const fmb_beam_t *bm, int e, int col[4])
{
    col[0] = bm->dof[3 * e + 1], col[1] = bm->dof[3 * e + 2];
    col[2] = bm->dof[3 * e + 4], col[3] = bm->dof[3 * e + 5];
}

/* Shape functions of element e's six local dofs (u1 v1 phi1 u2 v2 phi2) at body-frame
 * point (x, y0). */
void fmb_beam_local_shape(const fmb_beam_t *bm, int e, double x, double y0, double nx[6],
                          double ny[6])
{
    const double l = bm->x[e + 1] - bm->x[e], xi = (x - bm->x[e]) / l;
    double H[4], dH[4];
    fmb_beam_hermite(bm, e, x, 0, H);
    fmb_beam_hermite(bm, e, x, 1, dH);
    nx[0] = 1 - xi, nx[1] = -y0 * dH[0], nx[2] = -y0 * dH[1];
    nx[3] = xi, nx[4] = -y0 * dH[2], nx[5] = -y0 * dH[3];
    ny[0] = 0, ny[1] = H[0], ny[2] = H[1], ny[3] = 0, ny[4] = H[2], ny[5] = H[3];
}

/* Shape functions at body-frame point (x, y0) of element e. */
void fmb_beam_element_shape(const fmb_beam_t *bm, int e, double x, double y0, fmb_shape_t *N)
{
    double nx[6], ny[6];
    fmb_beam_local_shape(bm, e, x, y0, nx, ny);
    const int *d = bm->dof + 3 * e; /* u1 v1 phi1 u2 v2 phi2 */
    N->n = 0;
    for (int k = 0; k < 6; k++) {
        if (d[k] < 0) continue;
        N->col[N->n] = d[k];
        N->Nx[N->n] = nx[k];
        N->Ny[N->n] = ny[k];
        N->n++;
    }
}
