/* modcache.h — compiled library modules kept on disk, so that the first call
 * into lists or string loads bytecode instead of compiling the source.
 *
 * Compiling a library module took 15-40 ms (lists.mini about 20, string.mini
 * with unicode_util about 40), paid inside whatever a program was timing
 * the first time it called the module; Erlang/OTP loads a .beam. `make`
 * writes ebin/M.mbc for every stdlib/M.mini (`mini -c ebin FILE...`), and
 * the code path loads a library module from there when the cache file was
 * made from the same source bytes (its hash and length are in the file) by
 * a compiler with the same instruction set, BIF table and compiler sources
 * (the fingerprint); anything else, or a file that does not read back
 * whole, is compiled from the source as before. Only the library's own
 * directories use it: a program's modules are compiled as they are.
 *
 * The file holds a CodeModule (bytecode.h) with its atoms by name and its
 * constants rebuilt as literals (literal.h): small integers, atoms, [],
 * tuples, lists, floats, big integers, binaries and the empty map, which is
 * every constant the code generator makes. Words are the host's: a cache
 * is for the machine that made it (the fingerprint includes the word size
 * and byte order).
 */
#ifndef MINI_MODCACHE_H
#define MINI_MODCACHE_H

#include <stddef.h>
#include "bytecode.h"

/* Writes cm, compiled from src[0..len), to path. 1 written; 0 if cm holds
 * a constant the format cannot (nothing written); -1 if the file could not
 * be written. */
int modcache_write(const char *path, const CodeModule *cm, const char *src, size_t len);

/* The module cached at path if the cache is valid for src[0..len) and
 * names the module `expect` (an atom; 0: any), with `file` as its source
 * name; else NULL. Never fails on a bad file: it just is not used. */
CodeModule *modcache_read(const char *path, const char *src, size_t len, const char *file, Term expect);

/* The same, from bytes in memory (modcache_read's work; for the tests). */
CodeModule *modcache_decode(const unsigned char *b, size_t n, const char *src, size_t len,
                            const char *file, Term expect);

#endif
