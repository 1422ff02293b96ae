/*
 * Gmsh bar meshes (src/io/mesh.c).
 *   test_mesh MESH_DIR                    the shipped rocker meshes: node count and
 *                                         positions 0.6 k / n
 *   test_mesh FILE LINE PHRASE            a bad mesh: the reader fails with a message
 *                                         "FILE:LINE: ..." containing PHRASE (LINE "-":
 *                                         "FILE: ..." without a line)
 */
#include "io/mesh.h"

#include "flexmb/flexmb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void check_uniform(const char *dir, const char *file, int nel, double len)
{
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    double *x = NULL;
    int n = 0;
    int rc = fmb_mesh_read_line(path, &x, &n, err, sizeof err);
    if (rc) {
        fprintf(stderr, "%s: unexpected failure %d: %s\n", file, rc, err);
        failures++;
        return;
    }
    if (n != nel + 1) {
        fprintf(stderr, "%s: %d nodes, expected %d\n", file, n, nel + 1);
        failures++;
    } else {
        double worst = 0;
        for (int k = 0; k < n; k++) {
            double d = fabs(x[k] - len * k / nel);
            if (d > worst) worst = d;
            if (!(d <= 1e-12)) {
                fprintf(stderr, "%s: node %d at %.17g, expected %.17g\n", file, k, x[k],
                        len * k / nel);
                failures++;
            }
        }
        printf("%s: %d nodes, max |x_k - %g k/%d| = %.3g\n", file, n, len, nel, worst);
    }
    free(x);
}

static int bad(const char *file, const char *line, const char *phrase)
{
    double *x = (double *)&failures; /* must come back NULL */
    int n = -1;
    char err[1024];
    int rc = fmb_mesh_read_line(file, &x, &n, err, sizeof err);
    printf("%s: rc %d: %s\n", file, rc, err);
    int ok = 1;
    if (rc >= 0) {
        fprintf(stderr, "FAIL: expected a negative status\n");
        ok = 0;
    }
    if (x != NULL || n != 0) {
        fprintf(stderr, "FAIL: outputs not cleared on failure\n");
        ok = 0;
    }
    char where[1200];
    if (!strcmp(line, "-"))
        snprintf(where, sizeof where, "%s: ", file);
    else
        snprintf(where, sizeof where, "%s:%s: ", file, line);
    if (strncmp(err, where, strlen(where))) {
        fprintf(stderr, "FAIL: message does not start with '%s'\n", where);
        ok = 0;
    }
    if (!strstr(err, phrase)) {
        fprintf(stderr, "FAIL: message does not contain '%s'\n", phrase);
        ok = 0;
    }
    /* a too small buffer still gets a terminated (truncated) message */
    char small[8];
    memset(small, 'x', sizeof small);
    x = NULL;
    fmb_mesh_read_line(file, &x, &n, small, sizeof small);
    if (!memchr(small, '\0', sizeof small)) {
        fprintf(stderr, "FAIL: short error buffer not terminated\n");
        ok = 0;
    }
    free(x);
    fmb_mesh_read_line(file, &x, &n, NULL, 0);
    free(x);
    puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 4) return bad(argv[1], argv[2], argv[3]);
    const char *dir = argc > 1 ? argv[1] : "meshes";
    check_uniform(dir, "rocker_10.msh", 10, 0.6);
    check_uniform(dir, "rocker_20.msh", 20, 0.6);
    if (failures) {
        fprintf(stderr, "test_mesh: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_mesh: all checks passed\n");
    return 0;
}
