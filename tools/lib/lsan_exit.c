// SPDX-License-Identifier: GPL-2.0-only
/*
 * LeakSanitizer for the bodies of host tests.  The kselftest harness runs
 * each test in a child that ends with _exit(), which skips the leak check
 * LeakSanitizer makes at exit(): a test body could leak and pass.  Host
 * tests link with -Wl,--wrap=_exit, so the harness's _exit() comes here
 * first: the leak check runs, and a leak turns a pass into a failure.
 */
#include <sanitizer/lsan_interface.h>
#include <unistd.h>

void __real__exit(int status) __attribute__((noreturn));
void __wrap__exit(int status) __attribute__((noreturn));

void __wrap__exit(int status)
{
	/* Reported on stderr, with the stacks that allocated. */
	if (__lsan_do_recoverable_leak_check() && status == 0)
		status = 1;
	__real__exit(status);
}
