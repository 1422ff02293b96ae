/* Whole-file reading for inputs (src/core/file.h). */
#include "core/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *fmb_open_regular(const char *path, size_t max, int *err, const char **why)
{
    *why = NULL;
    *err = 0;
    /* O_NONBLOCK: opening a FIFO that has no writer returns at once instead of waiting for
     * one; the test below then refuses it. Cleared for the reads of a regular file. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *err = errno ? errno : EIO;
        return NULL;
    }
    struct stat st;
    int bad = fstat(fd, &st) != 0;
    if (bad || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
        *why = bad                   ? "cannot be examined"
               : S_ISDIR(st.st_mode) ? "a directory, not a file"
               : S_ISREG(st.st_mode) ? "larger than the size limit"
                                     : "not a regular file";
        close(fd);
        *err = EINVAL;
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    FILE *f = fl >= 0 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        *err = errno ? errno : EIO;
        close(fd);
    }
    return f;
}

int fmb_read_file(const char *path, size_t max, char **text, size_t *len, const char **why)
{
    *text = NULL;
    *len = 0;
    int open_err;
    FILE *f = fmb_open_regular(path, max, &open_err, why);
    if (!f) return open_err;
    struct stat st;
    if (fstat(fileno(f), &st) != 0) st.st_size = 0;
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
