/* bif_os.c — os:getenv/0,1, os:putenv/2, os:unsetenv/1, os:getpid/0 and
 * os:type/0 (os:getenv/2 is in stdlib/os.mini).
 *
 * The C library's environment is not safe to change while another thread
 * reads it, and every scheduler may run os:getenv at once: all access goes
 * through env_lock (readers share it, putenv and unsetenv take it alone). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bif.h"
#include "bif_file.h"
#include "term_build.h"

extern char **environ;
static pthread_rwlock_t env_lock = PTHREAD_RWLOCK_INITIALIZER;

void os_env_read_lock(int lock) {
    if (lock) pthread_rwlock_rdlock(&env_lock);
    else pthread_rwlock_unlock(&env_lock);
}

/* A variable name or value: a string (Erlang accepts no atoms here), as
 * UTF-8 in b; -1 if it is not one. */
static int env_text(OutBuf *b, Term t) {
    if (!is_list(t) && t != NIL) return -1;
    return file_name(b, t);
}

Term bif_os_getenv_0(Process *p, Term *args) {
    (void)args;
    pthread_rwlock_rdlock(&env_lock);
    Term res = NIL;
    size_t n = 0;
    for (char **e = environ; *e; e++) n++;
    for (size_t i = n; i-- > 0;) res = cons(p, file_text_to_list(p, environ[i], strlen(environ[i])), res);
    pthread_rwlock_unlock(&env_lock);
    return res;
}

Term bif_os_getenv_1(Process *p, Term *args) {
    OutBuf k;
    if (env_text(&k, args[0]) < 0) BIF_ERROR(p, AM_badarg);
    pthread_rwlock_rdlock(&env_lock);
    const char *v = strchr(k.buf, '=') ? NULL : getenv(k.buf);
    Term res = v ? file_text_to_list(p, v, strlen(v)) : AM_false;
    pthread_rwlock_unlock(&env_lock);
    ob_free(&k);
    return res;
}

Term bif_os_putenv_2(Process *p, Term *args) {
    OutBuf k, v;
    if (env_text(&k, args[0]) < 0) BIF_ERROR(p, AM_badarg);
    if (env_text(&v, args[1]) < 0) { ob_free(&k); BIF_ERROR(p, AM_badarg); }
    int bad = k.len == 0 || strchr(k.buf, '=') != NULL;
    pthread_rwlock_wrlock(&env_lock);
    int r = bad ? -1 : setenv(k.buf, v.buf, 1);
    pthread_rwlock_unlock(&env_lock);
    ob_free(&k);
    ob_free(&v);
    if (r < 0) BIF_ERROR(p, AM_badarg);
    return AM_true;
}

Term bif_os_unsetenv_1(Process *p, Term *args) {
    OutBuf k;
    if (env_text(&k, args[0]) < 0) BIF_ERROR(p, AM_badarg);
    pthread_rwlock_wrlock(&env_lock);
    int r = k.len == 0 || strchr(k.buf, '=') ? -1 : unsetenv(k.buf);
    pthread_rwlock_unlock(&env_lock);
    ob_free(&k);
    if (r < 0) BIF_ERROR(p, AM_badarg);
    return AM_true;
}

Term bif_os_getpid_0(Process *p, Term *args) {
    (void)args;
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%ld", (long)getpid());
    return file_text_to_list(p, buf, (size_t)n);
}

Term bif_os_type_0(Process *p, Term *args) {
    (void)args;
    return tuple2(p, atom_intern_cstr("unix"), atom_intern_cstr("linux"));
}
