/* Whole-file reading for inputs (src/core/file.h). */
#include "core/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int fmb_read_file(const char *path, size_t max, char **text, size_t *len, const char **why)
{
    *why = NULL;
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return errno ? errno : EIO;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
        *why = S_ISDIR(st.st_mode)   ? "a directory, not a file"
               : S_ISREG(st.st_mode) ? "larger than the size limit"
                                     : "not a regular file";
        fclose(f);
        return EINVAL;
    }
    /* the size is known, but a file can grow while read: read until end, within max */
    size_t cap = (size_t)st.st_size + 1 > 4096 ? (size_t)st.st_size + 1 : 4096, n = 0;
    char *buf = malloc(cap);
    int err = buf ? 0 : ENOMEM;
    while (buf && !err) {
        if (n + 1 >= cap) {
            char *b = cap <= max ? realloc(buf, cap * 2) : NULL;
            if (!b) {
                err = cap <= max ? ENOMEM : EFBIG;
                break;
            }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) err = errno ? errno : EIO;
            break;
        }
    }
    fclose(f);
    if (err) {
        if (err == EFBIG) *why = "larger than the size limit";
        free(buf);
        return err;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}
