/*
 * libFuzzer harness: the Gmsh bar-mesh reader from a memory buffer
 * (fmb_mesh_read_line_buffer, the same reader as for files).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "io/mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 256 * 1024) return 0;
    double *x = NULL;
    int n = 0;
    char err[512];
    if (fmb_mesh_read_line_buffer("fuzz.msh", (const char *)data, size, &x, &n, err, sizeof err) ==
        0)
        free(x);
    return 0;
}
