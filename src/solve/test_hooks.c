/* The tests' hooks into a run (test_hooks.h). */
#include "solve/test_hooks.h"

#include <string.h>

#include "solve/sim.h"

void fmb_test_set_accept_hook(fmb_sim_t *s, fmb_test_accept_fn fn, void *user)
{
    s->diag.accept_hook = fn;
    s->diag.accept_hook_user = user;
}

void fmb_test_set_keep_force(fmb_sim_t *s, int on)
{
    s->ctl.keep_force = on;
}

const double *fmb_test_acc(const fmb_sim_t *s)
{
    return s->st.acc;
}

int fmb_test_switch_z(const fmb_sim_t *s, int force, double z[4])
{
    for (int e = 0; e < s->ct.nsw; e++)
        if (s->ct.swe[e].force == force) {
            memcpy(z, s->ct.swe[e].z, sizeof s->ct.swe[e].z);
            return 0;
        }
    return FMB_ERR_NOTFOUND;
}
