/*
 * The case keys in docs/case-format.md are the class tables' keys (docs/extending.md):
 * every joint and force type has a row "| `type` | ..." naming each key of its class's parameter table (and the body keys its item flags give), and every key of a
 * friction model has a row "| `key` | ..." in the friction table whose stated default
 * ("default X", or "default X (model), Y (other model)") is the table's. Fails when a class gains a key the docs do not mention, or
 * a documented default drifts from the code.
 * usage: test_class_docs docs/case-format.md
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forces/forces.h"
#include "joints/joints.h"
#include "model/params.h"

static int failures;
static char *doc;

/* the line of the docs that starts with "| `name` |" (NULL if none); copied into buf */
static const char *row(const char *name, char *buf, size_t len)
{
    char head[96];
    snprintf(head, sizeof head, "\n| `%s` |", name);
    const char *p = strstr(doc, head);
    if (!p) return NULL;
    p++;
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n >= len) n = len - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

static void keys_in_row(const char *what, const char *type, unsigned flags, const char *vkey,
                        const fmb_param_t *params)
{
    static char buf[8192];
    if (!row(type, buf, sizeof buf)) {
        printf("FAIL %s type '%s': no row \"| `%s` |\" in the docs\n", what, type, type);
        failures++;
        return;
    }
    const char *keys[80];
    int n = 0;
    if (vkey) keys[n++] = vkey;
    if ((flags & FMB_ITEM_BODY) && strcmp(what, "joint")) keys[n++] = "body";
    for (int k = 0; params && params[k].kind != FMB_PARAM_END && n < 79; k++)
        keys[n++] = params[k].key;
    int checked = 0;
    for (int k = 0; k < n; k++) {
        char pat[96], pat2[96]; /* `key` or `key: [...]` */
        snprintf(pat, sizeof pat, "`%s`", keys[k]);
        snprintf(pat2, sizeof pat2, "`%s: ", keys[k]);
        if (!strstr(buf, pat) && !strstr(buf, pat2)) {
            printf("FAIL %s type '%s': key '%s' not in its row\n", what, type, keys[k]);
            failures++;
        }
        checked++;
    }
    printf("ok   %s type %-14s %d keys documented\n", what, type, checked);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "docs/case-format.md";
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("FAIL cannot open %s\n", path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    const long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    doc = calloc((size_t)len + 2, 1);
    doc[0] = '\n';
    if (fread(doc + 1, 1, (size_t)len, f) != (size_t)len) failures++;
    fclose(f);

    const fmb_joint_class_t *jk;
    for (int k = 0; (jk = fmb_joint_class_at(k)); k++)
        if (jk->case_type && (!jk->variant || !strcmp(jk->variant, "angle")))
            keys_in_row("joint", jk->case_type, jk->item_flags, jk->variant_key, jk->params);
    const fmb_force_class_t *fk;
    for (int k = 0; (fk = fmb_force_class_at(k)); k++)
        if (fk->case_type)
            keys_in_row("force", fk->case_type, fk->item_flags, fk->variant_key, fk->params);

    /* friction models: a row per key, its default as in the table */
    const fmb_friction_class_t *mk;
    int nrows = 0;
    for (int k = 0; (mk = fmb_friction_class_at(k)); k++)
        for (const fmb_param_t *p = mk->params; p && p->kind != FMB_PARAM_END; p++) {
            char buf[1024];
            if (!row(p->key, buf, sizeof buf)) {
                printf("FAIL friction model %s: key '%s' has no row\n", mk->name, p->key);
                failures++;
                continue;
            }
            nrows++;
            const char *d = strstr(buf, "default ");
            if (p->flags & FMB_PARAM_REQUIRED) continue;
            if (!d) {
                printf("FAIL friction key '%s': no default stated (code: %g)\n", p->key,
                       p->dflt[0]);
                failures++;
                continue;
            }
            /* a default per model: "default 1e-6 (coulomb), 1e-4 (lugre)" */
            char tag[64];
            snprintf(tag, sizeof tag, " (%s)", mk->name);
            const char *t = strstr(d, tag), *num = d + 8;
            if (t)
                for (num = t; num > d && num[-1] != ' '; num--)
                    ;
            const double x = strtod(num, NULL);
            if (!(fabs(x - p->dflt[0]) <= 1e-12 * fabs(p->dflt[0]))) {
                printf("FAIL friction key '%s': docs default %g, code %g\n", p->key, x,
                       p->dflt[0]);
                failures++;
            }
        }
    printf("friction model keys checked: %d\n", nrows);
    free(doc);
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
