/* `flexmb compare`: which quantities are compared and how (compare.c aligns the runs and
 * keeps the statistics): each dataset's columns with their units, beam deflections at
 * fixed stations through the beams' cubic Hermite functions (runs on different meshes),
 * the reactions' independent columns, in a fixed order. */
#include "io/compare_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "io/h5util.h"

/* k-th comma-separated field of list into out, else the fallback "c<k>". */
static void column_name(const char *list, long k, char *out, size_t len)
{
    const char *p = list;
    for (long i = 0; i < k && p && *p; i++) {
        p = strchr(p, ',');
        if (p) p++;
    }
    if (!p || !*p) {
        snprintf(out, len, "c%ld", k);
        return;
    }
    size_t n = strcspn(p, ",");
    if (n >= len) n = len - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

/* Unit of column cname of dataset path (kind c->kind). */
static const char *unit_of(const cmp_ctx_t *c, const char *path, const char *cname, long col)
{
    const char *leaf = strrchr(path, '/');
    leaf = leaf ? leaf + 1 : path;
    switch (1u << c->kind) {
    case FMB_CMP_POSES:
        return col < 2 ? "m" : "rad";
    case FMB_CMP_COORDS: {
        const int d = strcmp(leaf, "qd") == 0 ? 1 : strcmp(leaf, "qdd") == 0 ? 2 : 0;
        static const char *const lin[] = {"m", "m/s", "m/s^2"}, *const ang[] = {"rad", "rad/s",
                                                                                "rad/s^2"};
        return col < 2 ? lin[d] : col == 2 ? ang[d] : "SI"; /* elastic: m or rad per column */
    }
    case FMB_CMP_REACTIONS:
        if (!cname[0]) return strcmp(leaf, "drive_torque") == 0 ? "N m" : "N";
        return cname[0] == 'M' ? "N m" : "N";
    case FMB_CMP_ENERGY:
        return "J";
    default:
        return "m";
    }
}

/* Compare dataset path in both files: the columns listed in sel (nsel > 0), else every
 * column (the first ncmp when ncmp > 0). The label is the path without its leading '/',
 * then [column name] unless the dataset is 1-D and per_column is 0. */
static int compare_dataset(cmp_ctx_t *c, const char *path, long ncmp, int per_column,
                           const long *sel, int nsel)
{
    long ra, ca, rb, cb;
    if (fmb_h5_shape(c->a.file, path, &ra, &ca) < 0 || fmb_h5_shape(c->b.file, path, &rb, &cb) < 0)
        return 0;
    long cols = ncmp > 0 ? ncmp : ca;
    if (ncmp <= 0 && ca != cb) return 0;
    if (cols > ca || cols > cb || ra < c->i1 || rb < c->b.n)
        return 0; /* fewer rows than records (a file still being written) */
    double *va = fmb_h5_read_rows(c->a.file, path, c->a.n, &ra, &ca);
    double *vb = fmb_h5_read_rows(c->b.file, path, c->b.n, &rb, &cb);
    if (!va || !vb) {
        free(va);
        free(vb);
        return fmb_cmp_error(c, FMB_ERR_HDF5, "cannot read %s", path);
    }
    char names[512], cname[64], label[CMP_LABEL_MAX];
    fmb_h5_attr_text(c->a.file, path, "columns", names, sizeof names);
    const long nc = nsel > 0 ? nsel : cols;
    for (long ic = 0; ic < nc; ic++) {
        const long col = nsel > 0 ? sel[ic] : ic;
        if (col >= cols) continue;
        if (ca == 1 && !per_column) {
            snprintf(label, sizeof label, "%s", path + 1);
            cname[0] = '\0';
        } else {
            column_name(names, col, cname, sizeof cname);
            snprintf(label, sizeof label, "%s[%s]", path + 1, cname);
        }
        c->unit = unit_of(c, path, cname, col);
        /* Sizes ca/cb may differ when only the first ncmp columns are compared. */
        if (ca == cb) {
            fmb_cmp_column(c, label, path, cname, va, vb, ca, col);
        } else {
            /* repack to a common stride */
            double *pa = malloc((size_t)ra * sizeof *pa), *pb = malloc((size_t)rb * sizeof *pb);
            if (!pa || !pb) {
                free(pa), free(pb), free(va), free(vb);
                return fmb_cmp_error(c, FMB_ERR_NOMEM, "out of memory");
            }
            for (long i = 0; i < ra; i++)
                pa[i] = va[i * ca + col];
            for (long i = 0; i < rb; i++)
                pb[i] = vb[i * cb + col];
            fmb_cmp_column(c, label, path, cname, pa, pb, 1, 0);
            free(pa), free(pb);
        }
    }
    free(va);
    free(vb);
    return 0;
}

/* Deflection of a beam at ns stations x_k = x0 + L k / (ns - 1), record by record, from the
 * nodal deflections v and slopes phi with the cubic Hermite functions of the element that
 * holds x_k (linear in v when the file has no slopes): [rows x ns], NULL on failure. */
static double *stations(hid_t file, long nrec, const char *beam, int ns, double xlo, double len,
                        long *rows)
{
    char path[CMP_PATH_MAX];
    long nn, one, r2, c2, r3 = 0, c3 = 0;
    snprintf(path, sizeof path, "/beams/%s/x0", beam);
    double *x = fmb_h5_read(file, path, &nn, &one);
    snprintf(path, sizeof path, "/beams/%s/deflection", beam);
    double *v = fmb_h5_read_rows(file, path, nrec, &r2, &c2);
    snprintf(path, sizeof path, "/beams/%s/slope", beam);
    double *ph = fmb_h5_read_rows(file, path, nrec, &r3, &c3);
    double *out = x && v && c2 == nn && nn >= 2 ? malloc((size_t)r2 * ns * sizeof *out) : NULL;
    if (out) {
        if (!ph || c3 != nn || r3 != r2) free(ph), ph = NULL;
        for (int k = 0; k < ns; k++) {
            const double xs = xlo + len * k / (ns - 1);
            long e = 0;
            while (e + 2 < nn && x[e + 1] <= xs)
                e++;
            const double l = x[e + 1] - x[e], xi = (xs - x[e]) / l, x2 = xi * xi, x3 = x2 * xi;
            const double H1 = 1 - 3 * x2 + 2 * x3, H2 = l * (xi - 2 * x2 + x3),
                         H3 = 3 * x2 - 2 * x3, H4 = l * (x3 - x2);
            for (long i = 0; i < r2; i++) {
                const double *vi = v + i * nn;
                out[i * ns + k] =
                    ph ? H1 * vi[e] + H2 * ph[i * nn + e] + H3 * vi[e + 1] + H4 * ph[i * nn + e + 1]
                       : (1 - xi) * vi[e] + xi * vi[e + 1];
            }
        }
        *rows = r2;
    }
    free(x), free(v), free(ph);
    return out;
}

/* Beam deflection of beam `name` at fixed stations, whatever the two meshes. */
static int compare_beam(cmp_ctx_t *c, const char *name)
{
    char path[CMP_PATH_MAX];
    long na, nb, one;
    snprintf(path, sizeof path, "/beams/%s/x0", name);
    double *xa = fmb_h5_read(c->a.file, path, &na, &one),
           *xb = fmb_h5_read(c->b.file, path, &nb, &one);
    int ok = xa && xb && na >= 2 && nb >= 2;
    double lo = ok ? xa[0] : 0, len = ok ? xa[na - 1] - xa[0] : 0;
    if (ok && (fabs(xb[0] - lo) > 1e-9 * len || fabs(xb[nb - 1] - xb[0] - len) > 1e-9 * len))
        ok = 0; /* not the same bar */
    free(xa), free(xb);
    if (!ok) return 0;
    const int ns = c->o.stations;
    long ra = 0, rb = 0;
    double *sa = stations(c->a.file, c->a.n, name, ns, lo, len, &ra);
    double *sb = stations(c->b.file, c->b.n, name, ns, lo, len, &rb);
    if (sa && sb && ra >= c->i1 && rb >= c->b.n) {
        snprintf(path, sizeof path, "/beams/%s/deflection", name);
        c->unit = "m";
        for (int k = 0; k < ns; k++) {
            char label[CMP_LABEL_MAX], cname[64];
            snprintf(cname, sizeof cname, "x=%.4g", lo + len * k / (ns - 1));
            snprintf(label, sizeof label, "%s[%s]", path + 1, cname);
            fmb_cmp_column(c, label, path, cname, sa, sb, ns, k);
        }
    }
    free(sa), free(sb);
    return 0;
}

/* The bodies on a prismatic joint with the ground in file f (rams, carriages: their
 * positions belong to the engineer's set), added to c->guided. */
static int find_guided(cmp_ctx_t *c, hid_t f)
{
    char **names = NULL, path[CMP_PATH_MAX], type[64], b[2][256];
    const int n = fmb_h5_members(f, "/joints", NULL, &names);
    int st = 0;
    for (int i = 0; i < n && st >= 0; i++) {
        snprintf(path, sizeof path, "/joints/%s", names[i]);
        fmb_h5_attr_text(f, path, "type", type, sizeof type);
        if (strcmp(type, "prismatic") != 0) continue;
        fmb_h5_attr_text(f, path, "body1", b[0], sizeof b[0]);
        fmb_h5_attr_text(f, path, "body2", b[1], sizeof b[1]);
        for (int s = 0; s < 2; s++) {
            if (!b[s][0] || strcmp(b[s], "ground") == 0 || strcmp(b[1 - s], "ground") != 0)
                continue;
            int seen = 0;
            for (int g = 0; g < c->nguided && !seen; g++)
                seen = strcmp(c->guided[g], b[s]) == 0;
            if (seen) continue;
            char **gr = realloc(c->guided, (size_t)(c->nguided + 1) * sizeof *gr);
            if (!gr || !(gr[c->nguided] = malloc(strlen(b[s]) + 1))) {
                if (gr) c->guided = gr;
                st = fmb_cmp_error(c, FMB_ERR_NOMEM, "out of memory");
                break;
            }
            c->guided = gr;
            strcpy(c->guided[c->nguided++], b[s]);
        }
    }
    fmb_h5_free_names(names, n);
    return st;
}

static int is_guided(const cmp_ctx_t *c, const char *body)
{
    for (int g = 0; g < c->nguided; g++)
        if (strcmp(c->guided[g], body) == 0) return 1;
    return 0;
}

/* Every common quantity of the kinds to compute, in a fixed order: sliders, bodies,
 * joints, beams, energy; each marked when it belongs to the engineer's set (slider
 * positions, x and y of bodies on ground guides, joint forces, drive torques and forces,
 * beam deflections). */
int fmb_cmp_all(cmp_ctx_t *c)
{
    char path[CMP_PATH_MAX];
    char **names = NULL;
    int n, st = 0;
    const unsigned kinds = c->compute;

    st = find_guided(c, c->a.file);
    if (st >= 0) st = find_guided(c, c->b.file);
    if (st < 0) return st;

    c->kind = 4; /* sliders */
    c->eng_all = 1;
    n = kinds & FMB_CMP_SLIDERS ? fmb_h5_members(c->a.file, "/sliders", NULL, &names) : 0;
    for (int i = 0; i < n && st >= 0; i++) {
        snprintf(path, sizeof path, "/sliders/%s/s", names[i]);
        st = compare_dataset(c, path, 0, 0, NULL, 0);
    }
    fmb_h5_free_names(names, n);
    names = NULL;

    n = kinds & (FMB_CMP_POSES | FMB_CMP_COORDS)
            ? fmb_h5_members(c->a.file, "/bodies", NULL, &names)
            : 0;
    for (int i = 0; i < n && st >= 0; i++) {
        static const char *const sets[] = {"pose", "q", "qd", "qdd"};
        for (int s = 0; s < 4 && st >= 0; s++) {
            c->kind = s == 0 ? 0 : 1;
            if (!(kinds & (1u << c->kind))) continue;
            c->eng_all = 0;
            c->eng_cols = s == 0 && is_guided(c, names[i]) ? 3u : 0u; /* x, y */
            snprintf(path, sizeof path, "/bodies/%s/%s", names[i], sets[s]);
            long ra, ca, rb, cb;
            if (fmb_h5_shape(c->a.file, path, &ra, &ca) < 0 ||
                fmb_h5_shape(c->b.file, path, &rb, &cb) < 0)
                continue;
            /* Elastic bodies with different meshes: the carrier coordinates only. */
            st = compare_dataset(c, path, ca == cb ? 0 : 3, 1, NULL, 0);
        }
    }
    fmb_h5_free_names(names, n);
    names = NULL;

    c->kind = 2; /* reactions: the forces on body 2 are minus those on body 1 */
    static const long rsel[] = {0, 1, 2, 5};
    n = kinds & FMB_CMP_REACTIONS ? fmb_h5_members(c->a.file, "/joints", NULL, &names) : 0;
    for (int i = 0; i < n && st >= 0; i++) {
        snprintf(path, sizeof path, "/joints/%s/reaction", names[i]);
        c->eng_all = 0, c->eng_cols = 0;
        st = compare_dataset(c, path, 0, 1, rsel, 4);
        /* the engineer's: the joint force |(Fx, Fy)|, a driver's torque or force */
        static const char *const eng[] = {"force_magnitude", "drive_torque", "drive_force"};
        for (int e = 0; e < 3 && st >= 0; e++) {
            snprintf(path, sizeof path, "/joints/%s/%s", names[i], eng[e]);
            c->eng_all = 1;
            st = compare_dataset(c, path, 0, 0, NULL, 0);
        }
    }
    fmb_h5_free_names(names, n);
    names = NULL;

    c->kind = 3; /* beam deflection at stations */
    c->eng_all = 1;
    n = kinds & FMB_CMP_DEFLECTION ? fmb_h5_members(c->a.file, "/beams", NULL, &names) : 0;
    for (int i = 0; i < n && st >= 0; i++)
        st = compare_beam(c, names[i]);
    fmb_h5_free_names(names, n);
    names = NULL;

    c->kind = 5;
    c->eng_all = 0, c->eng_cols = 0;
    if (st >= 0 && (kinds & FMB_CMP_ENERGY)) st = compare_dataset(c, "/energy", 0, 1, NULL, 0);
    return st;
}
