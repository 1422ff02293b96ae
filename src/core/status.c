/* Status messages from the X-macro list in flexmb.h. */
#include "flexmb/flexmb.h"

const char *fmb_status_message(int status)
{
    switch (status) {
#define FMB_STATUS_CASE_(name, value, msg)                                                         \
    case value:                                                                                    \
        return msg;
        FMB_STATUS_LIST(FMB_STATUS_CASE_)
#undef FMB_STATUS_CASE_
    default:
        return "unknown status";
    }
}

const char *fmb_version(void)
{
    return FMB_VERSION_STRING;
}
