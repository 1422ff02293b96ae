/* `flexmb keys [joints|forces|friction] [TYPE]`: the case keys of the item types, as the
 * classes' tables define them (docs/extending.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int show(const char *section, const char *type)
{
    const int n = fmb_case_keys(section, type, NULL, 0);
    if (n < 0) return n;
    char *buf = malloc((size_t)n + 1);
    if (!buf) return FMB_ERR_NOMEM;
    fmb_case_keys(section, type, buf, (size_t)n + 1);
    fputs(buf, stdout);
    free(buf);
    return 0;
}

int cli_cmd_keys(int argc, char **argv)
{
    static const char *const sections[] = {"joints", "forces", "friction"};
    if (argc > 3 || (argc > 1 && !strcmp(argv[1], "--help"))) {
        fprintf(stderr, "usage: flexmb keys [joints|forces|friction] [TYPE]\n"
                        "  the case keys of a type (key, kind, unit, default, bounds, meaning);\n"
                        "  without TYPE the types of the section, without a section all types\n");
        return argc > 3 ? EXIT_USAGE : EXIT_OK;
    }
    if (argc == 1) {
        for (int k = 0; k < 3; k++) {
            printf("%s%s:\n", k ? "\n" : "", sections[k]);
            show(sections[k], NULL);
        }
        return EXIT_OK;
    }
    const int rc = show(argv[1], argc > 2 ? argv[2] : NULL);
    if (rc == FMB_ERR_NOTFOUND) {
        if (argc > 2 && show(argv[1], NULL) == 0)
            fprintf(stderr, "flexmb keys: no type '%s' in %s (the list above)\n", argv[2], argv[1]);
        else
            fprintf(stderr, "flexmb keys: unknown section '%s' (joints, forces, friction)\n",
                    argv[1]);
        return EXIT_USAGE;
    }
    return rc ? EXIT_MODEL : EXIT_OK;
}
