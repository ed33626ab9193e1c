/*
 * NPO device model: test equipment on the cable.
 *
 * The QOM property "inject" hands a port frames as if its peer had sent
 * them, for the host to play a hostile or broken peer (a host whose root
 * loads its own driver) without writing one: "lmsg PORT HEX" is a link
 * message, "time PORT HEX" a time sync message, each delivered through the
 * same path as one off the wire, so only on a port whose link is up.
 * Several, separated by ';', are delivered in order by one set, as fast
 * as the port takes them: what the device's queues do not hold is dropped
 * and counted as for a peer sending at line rate.  Reading it gives how
 * many were delivered and how many refused (no link, a bad message), and
 * how many link messages the device holds and has dropped, so that a
 * test can wait for room instead.
 * hardware.rst, "Test equipment", describes it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/ctype.h"
#include "qapi/error.h"

#include "npo-state.h"
#include "npo-clock.h"
#include "npo-port.h"
#include "npo-route.h"

/* HEX into buf (max bytes): the length, or -1. */
static int npo_inject_hex(const char *hex, size_t n, uint8_t *buf, size_t max)
{
    size_t i;

    if (!n || n % 2 || n / 2 > max) {
        return -1;
    }
    for (i = 0; i < n; i += 2) {
        if (!qemu_isxdigit(hex[i]) || !qemu_isxdigit(hex[i + 1])) {
            return -1;
        }
        buf[i / 2] = (g_ascii_xdigit_value(hex[i]) << 4) |
                     g_ascii_xdigit_value(hex[i + 1]);
    }
    return n / 2;
}

/* One "KIND PORT HEX": true if delivered. */
static bool npo_inject_one(NpoState *s, const char *item, size_t len)
{
    uint8_t buf[MAX(NPO_LMSG_MAX, sizeof(WireTime))];
    g_autofree char *copy = g_strndup(item, len);
    char **w = g_strsplit(g_strstrip(copy), " ", 3);
    bool lmsg, ok = false;
    unsigned long port;
    int n;

    if (!w[0] || !w[1] || !w[2]) {
        goto out;
    }
    lmsg = !strcmp(w[0], "lmsg");
    if ((!lmsg && strcmp(w[0], "time")) ||
        qemu_strtoul(w[1], NULL, 10, &port) || port >= s->num_ports) {
        goto out;
    }
    /* A time message is its whole wire frame (hardware.rst). */
    n = npo_inject_hex(w[2], strlen(w[2]), buf,
                       lmsg ? NPO_LMSG_MAX : sizeof(WireTime));
    if (n < 0 || npo_link_ready(&s->port[port]) != NPO_LINK_UP) {
        goto out;
    }
    if (lmsg) {
        npo_lmsg_rx(&s->port[port], buf, n);
    } else {
        npo_clock_rx(&s->port[port], buf, n);
    }
    ok = true;
out:
    g_strfreev(w);
    return ok;
}

static void npo_set_inject(Object *obj, const char *value, Error **errp)
{
    NpoState *s = NPO(obj);
    const char *at = value;

    while (*at) {
        size_t len = strcspn(at, ";");

        if (len) {
            if (npo_inject_one(s, at, len)) {
                s->inject_delivered++;
            } else {
                s->inject_refused++;
            }
        }
        at += len + (at[len] == ';');
    }
}

static char *npo_get_inject(Object *obj, Error **errp)
{
    NpoState *s = NPO(obj);

    /* What the device still holds: a patient peer waits for room. */
    return g_strdup_printf("delivered %" PRIu64 " refused %" PRIu64
                           " queued %u dropped %" PRIu32,
                           s->inject_delivered, s->inject_refused,
                           s->lmsg_rx_count, s->lmsg_rx_drops);
}

void npo_inject_add_properties(Object *obj)
{
    object_property_add_str(obj, "inject", npo_get_inject, npo_set_inject);
}
