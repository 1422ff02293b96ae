/* Messages that quote what the user gave (names, paths, values): a very long word is
 * shortened so that the cause that follows it still fits in the message. */
#ifndef FMB_CORE_TEXT_H
#define FMB_CORE_TEXT_H

#include <stdarg.h>
#include <stddef.h>

/* Words (runs without blanks or quotes) longer than this are shortened to their first and
 * last FMB_WORD_KEEP characters around "...". */
#define FMB_WORD_MAX 160
#define FMB_WORD_KEEP 60

/* Shorten the long words of s in place. */
void fmb_elide_words(char *s);
/* vsnprintf of the whole message into out (cap bytes), its long words shortened first. */
void fmb_vformat(char *out, size_t cap, const char *fmt, va_list ap);

#endif
