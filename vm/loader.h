/* loader.h — turning a compiled module into runnable threaded code, and the
 * module-table calls the rest of the VM uses to get code loaded. */
#ifndef MINI_LOADER_H
#define MINI_LOADER_H

#include "module.h"

struct CodeModule;

/* Links a compiled module (labels, imports, lambdas, BIFs), replaces opcode
 * numbers by handler addresses, registers it and fills its export entries.
 * NULL, with a message, if the module fails bytecode_check. */
LoadedModule *loader_load(const struct CodeModule *cm);

/* Finds the Mini root (stdlib/, examples/, lib/) from $MINI_ROOT or the
 * binary's path and sets up the code path; returns 0 if there is none. */
int module_init(const char *argv0);
/* The root that module_init chose (or tried last). */
const char *module_root(void);
/* Compiles and loads one file, whatever its module name. NULL on errors. */
LoadedModule *module_load_file(const char *path);
void module_register(LoadedModule *lm);
/* For the shell: loads compiled code under the load lock; compiles and
 * loads mod again from the code path (-1 not found, 0 errors, 1 done);
 * the i-th loaded module and code path directory, NULL past the end. */
LoadedModule *module_load_compiled(const struct CodeModule *cm);
int module_reload(Term mod);
LoadedModule *module_nth(int i);
const char *module_path_nth(int i);
/* Reads a whole file into Boehm memory (NUL-terminated); NULL on failure. */
char *module_read_file(const char *path, size_t *len);

#endif
