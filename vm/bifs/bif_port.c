/* bif_port.c — the BIFs of ports: open_port/2, port_command/2,3,
 * port_control/3, port_close/1, port_connect/2, port_info/1,2, ports/0 and
 * port_to_list/1. The machinery is vm/io/port.c; sending to a port
 * (Port ! Msg) goes through port_send from the send instruction. */
#include "bif.h"
#include "atom.h"
#include "outbuf.h"
#include "port.h"
#include "print.h"
#include "proc.h"
#include "term_build.h"

Term bif_open_port_2(Process *p, Term *args) { return port_open(p, args[0], args[1]); }
Term bif_port_command_2(Process *p, Term *args) { return port_command(p, args[0], args[1], NIL); }
Term bif_port_command_3(Process *p, Term *args) { return port_command(p, args[0], args[1], args[2]); }
Term bif_port_control_3(Process *p, Term *args) { return port_control(p, args[0], args[1], args[2]); }
Term bif_port_close_1(Process *p, Term *args) { return port_close(p, args[0]); }
Term bif_port_connect_2(Process *p, Term *args) { return port_connect(p, args[0], args[1]); }
Term bif_port_info_1(Process *p, Term *args) { return port_info(p, args[0], NIL); }

Term bif_port_info_2(Process *p, Term *args) {
    if (args[1] == NIL) BIF_ERROR(p, AM_badarg);     /* NIL means "all" to port_info */
    return port_info(p, args[0], args[1]);
}

Term bif_ports_0(Process *p, Term *args) { (void)args; return proc_all_ports(p); }

Term bif_port_to_list_1(Process *p, Term *args) {
    if (!is_port(args[0])) BIF_ERROR(p, AM_badarg);
    OutBuf b;
    ob_init(&b);
    print_term(&b, args[0], PRINT_WRITE);
    Term l = NIL;
    for (size_t i = b.len; i-- > 0;) l = cons(p, make_small((unsigned char)b.buf[i]), l);
    ob_free(&b);
    return l;
}
