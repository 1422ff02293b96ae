/* Reading whole input files (case files, tables): regular files of bounded size only, so
 * that a device (/dev/zero), a FIFO or a directory given by mistake is refused at once
 * instead of being read until memory runs out. */
#ifndef FMB_CORE_FILE_H
#define FMB_CORE_FILE_H

#include <stddef.h>
#include <stdio.h>

/* Read the regular file at path, at most max bytes. On success returns 0, *text holds the
 * contents with a NUL appended (malloc'ed, the caller frees) and *len their length. On
 * failure returns an errno value; *why is then a reason for files that exist but may not
 * be read ("not a regular file", "a directory, not a file", "larger than the limit"), or
 * NULL when strerror of the value says it. */
/* Open the regular file at path for reading, refused when it is larger than max bytes. A
 * FIFO, device or directory is refused without waiting (a FIFO with no writer does not
 * block). Returns the stream, or NULL with *err an errno value and *why as above. */
FILE *fmb_open_regular(const char *path, size_t max, int *err, const char **why);

int fmb_read_file(const char *path, size_t max, char **text, size_t *len, const char **why);

#endif
