/*
 * libFuzzer harness: time expressions (fmb_expr_create, then value and the first and
 * second time derivatives at a few instants, switch points included). Parameters a
 * and b are defined, as a case would define them. The input is the expression text.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    fmb_params_t p;
    memset(&p, 0, sizeof p);
    fmb_params_set(&p, "a", 0.5);
    fmb_params_set(&p, "b", -2.0);
    char msg[512];
    fmb_expr_t *e = fmb_expr_create(text, &p, msg, sizeof msg);
    if (e) {
        static const double ts[] = {0.0, 0.5, 1.0, -1.0, 1e-300, 1e300};
        for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++)
            for (int d = 0; d <= 2; d++)
                (void)fmb_expr_eval(e, ts[k], d);
        (void)fmb_expr_text(e);
        fmb_expr_destroy(&e);
    }
    fmb_params_free(&p);
    free(text);
    return 0;
}
