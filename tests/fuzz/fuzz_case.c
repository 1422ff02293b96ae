/*
 * libFuzzer harness: the YAML case loader from a memory buffer (fmb_case_load_text),
 * then the model check when the case loads. Built by scripts/fuzz.sh (clang,
 * -fsanitize=fuzzer,address,undefined); a finding is a crash, a sanitizer report, a
 * leak or a time-out. The case's relative paths (meshes) resolve against the
 * current directory, which scripts/fuzz.sh sets to tests/fuzz_cases.
 */
#include <stddef.h>
#include <stdint.h>

#include "flexmb/flexmb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 64 * 1024) return 0; /* cases are small; keep executions fast */
    char err[1024];
    fmb_case_t *c = fmb_case_load_text("fuzz.yaml", (const char *)data, size, NULL, 0, err,
                                       sizeof err);
    if (c) {
        fmb_model_t *m = fmb_case_model(c);
        /* the structural check only: the consistent start can take long on big models */
        if (m && fmb_model_num_coords(m) <= 600) {
            fmb_check_report_t rep;
            (void)fmb_model_check(m, &rep);
        }
        fmb_case_destroy(&c);
    }
    return 0;
}
