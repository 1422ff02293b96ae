/* Private declarations of the output module (src/io/writer*.c, src/io/xdmf.c). */
#ifndef FMB_IO_WRITER_H
#define FMB_IO_WRITER_H

#include <stdio.h>

#include "flexmb/flexmb.h"

/* Call before any other HDF5 use in the process (the writer, compare, file checks do). */
void fmb_hdf5_init(void);

#endif
