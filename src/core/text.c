/* Shortening long words in messages (src/core/text.h). */
#include "core/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_break(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\'' || c == '"';
}

void fmb_elide_words(char *s)
{
    char *w = s; /* write position: the text only shrinks */
    const char *r = s;
    while (*r) {
        if (is_break(*r)) {
            *w++ = *r++;
            continue;
        }
        size_t n = 0;
        while (r[n] && !is_break(r[n]))
            n++;
        if (n > FMB_WORD_MAX) {
            memmove(w, r, FMB_WORD_KEEP);
            memcpy(w + FMB_WORD_KEEP, "...", 3);
            memmove(w + FMB_WORD_KEEP + 3, r + n - FMB_WORD_KEEP, FMB_WORD_KEEP);
            w += 2 * FMB_WORD_KEEP + 3;
        } else {
            memmove(w, r, n);
            w += n;
        }
        r += n;
    }
    *w = '\0';
}

void fmb_vformat(char *out, size_t cap, const char *fmt, va_list ap)
{
    if (!out || cap == 0) return;
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!buf) { /* cannot shorten: the message as it fits */
        vsnprintf(out, cap, fmt, ap);
        return;
    }
    vsnprintf(buf, (size_t)n + 1, fmt, ap);
    fmb_elide_words(buf);
    snprintf(out, cap, "%s", buf);
    free(buf);
}
