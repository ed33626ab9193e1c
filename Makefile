# SPDX-License-Identifier: GPL-2.0-only
#
# NPO: top-level build.  See README.md.
#
#   make            build everything for both kernels
#   make check      set up, build, lint, host tests, in-VM selftests on both kernels
#   make demo       boot an emulated supernode host with 8 devices, show npoctl dev
#   make bench      run the benchmarks, write build/bench/results.json
#   make check-debug  the selftests on a KASAN/lockdep/kmemleak 6.12 kernel
#   make check-mutations  break what tests check, one patch at a time; every test must fail

VERSION := 0.1.0
BUILD := $(CURDIR)/build
KERNELS := 6.1 6.12

# Written by tools/setup/deps.sh: kernel versions and cached paths.
-include $(BUILD)/kernels.mk
# Written by tools/setup/debug-kernel.sh once `make check-debug` built it.
-include $(BUILD)/kernels-debug.mk
# Every kernel there are rules for; `make` and `make check` build KERNELS.
RULE_KERNELS := $(KERNELS) $(if $(KVER_debug),debug)

CC ?= cc
CFLAGS_COMMON := -std=c11 -Wall -Wextra -Werror -O2 -g -D_GNU_SOURCE \
	-DNPO_VERSION='"$(VERSION)"' -I$(CURDIR)/uapi \
	$(CPPFLAGS) $(CFLAGS) $(LDFLAGS)
# Programs find libnpo beside them in build/ (and under any PREFIX);
# packages, whose library is on the system path, build with RPATH=.
RPATH ?= -Wl,-rpath,'$$ORIGIN/../lib'
# The provider needs libfabric-dev from deps.  A package build has its
# Build-Depends instead (PACKAGING=1), and make install / dist expect the
# host to have debian/control's Build-Depends: neither ever runs apt.
DEPS_STAMP := $(if $(PACKAGING)$(filter install install-dkms dist,$(MAKECMDGOALS)),,$(BUILD)/.deps-stamp)
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
NL_CFLAGS = $(shell pkg-config --cflags libnl-genl-3.0)
NL_LIBS = $(shell pkg-config --libs libnl-genl-3.0)
JSON_CFLAGS = $(shell pkg-config --cflags json-c)
JSON_LIBS = $(shell pkg-config --libs json-c)
DRM_CFLAGS = $(shell pkg-config --cflags libdrm)
DRM_LIBS = $(shell pkg-config --libs libdrm)
KSELFTEST := $(KSRC_PIECES)/tools/testing/selftests
# kselftest_harness.h compares mixed types in its macros, as kernel selftests do.
HARNESS_CFLAGS := -Wno-unused-parameter -Wno-sign-compare

.PHONY: all deps qemu modules userspace firmware runtime provider npoctl npo-perf examples selftests \
	host-tests host-tests-build lint checkpatch kernel-doc sparse rst files initramfs check check-debug check-host check-mutations \
	check-fresh-root \
	demo bench install install-dkms install-tests dist deb mpi \
	clean distclean

all: modules userspace qemu

# --- set-up -----------------------------------------------------------------
deps: $(BUILD)/.deps-stamp
$(BUILD)/.deps-stamp $(BUILD)/kernels.mk: tools/setup/deps.sh tools/setup/apt.sh
	@mkdir -p $(BUILD)
	bash tools/setup/deps.sh $(BUILD)
	@touch $(BUILD)/.deps-stamp

# --- QEMU with the device model ---------------------------------------------
QEMU := $(BUILD)/qemu/qemu-system-x86_64
QEMU_DEPS := $(wildcard tools/qemu/*) firmware/npo_fw_validate.c uapi/linux/npo_queue.h \
	firmware/npo_fw_validate.h uapi/linux/npo_fw.h uapi/linux/npo_netlink.h \
	uapi/linux/npo_names.h
qemu: $(QEMU)
$(QEMU): $(QEMU_DEPS) $(BUILD)/.deps-stamp
	bash tools/qemu/build-qemu.sh $(QEMU_SRC) $(BUILD)/qemu
	@touch $@

# --- kernel module, for each kernel -----------------------------------------
KMOD_SRCS := Kbuild $(wildcard driver/*.[ch] driver/Kbuild) $(wildcard uapi/linux/*.h)
kmod_dir = $(BUILD)/kmod/$(1)
# Debian's headers package, or the debug kernel's own build tree.
kdir = $(or $(KDIR_$(1)),/usr/src/linux-headers-$(KVER_$(1)))

define kmod_rules
$(call kmod_dir,$(1))/driver/npo.ko: $(KMOD_SRCS) $(BUILD)/.deps-stamp
	@mkdir -p $(call kmod_dir,$(1))
	cp -r --parents $(KMOD_SRCS) $(call kmod_dir,$(1))/
	$(MAKE) -C $(call kdir,$(1)) M=$(call kmod_dir,$(1)) W=1 modules
sparse-$(1): $(call kmod_dir,$(1))/driver/npo.ko
	@echo "  SPARSE  $(KVER_$(1))"
	@$(MAKE) -s -C $(call kdir,$(1)) M=$(call kmod_dir,$(1)) W=1 C=2 modules \
		2>&1 | grep -v 'Skipping BTF' | tee $(BUILD)/sparse-$(1).log
	@! grep -q . $(BUILD)/sparse-$(1).log
endef
$(foreach k,$(RULE_KERNELS),$(eval $(call kmod_rules,$(k))))

modules: $(foreach k,$(KERNELS),$(call kmod_dir,$(k))/driver/npo.ko)
sparse: $(foreach k,$(KERNELS),sparse-$(k))

# --- userspace ----------------------------------------------------------------
RUNTIME_SRCS := $(wildcard runtime/*.c)
RUNTIME_HDRS := $(wildcard runtime/*.h runtime/include/*.h) uapi/linux/npo.h \
	uapi/linux/npo_queue.h uapi/linux/npo_netlink.h uapi/linux/npo_names.h
LIBNPO := $(BUILD)/lib/libnpo.so.2.0.0
NPOCTL := $(BUILD)/bin/npoctl
FWTOOL := $(BUILD)/bin/npo-fwtool
FWIMAGE := $(BUILD)/firmware/npo/npo-fw.bin

runtime: $(LIBNPO) $(BUILD)/lib/libnpo.pc
$(LIBNPO): $(RUNTIME_SRCS) $(RUNTIME_HDRS) runtime/libnpo.map
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -fPIC -shared -Iruntime/include -Iruntime \
		-Wl,-soname,libnpo.so.2 -Wl,--version-script=runtime/libnpo.map \
		-o $@ $(RUNTIME_SRCS)
	ln -sf libnpo.so.2.0.0 $(BUILD)/lib/libnpo.so.2
	ln -sf libnpo.so.2 $(BUILD)/lib/libnpo.so
# The libfabric provider "npo", on libnpo's public API: libfabric loads
# lib*-fi.so from its provider directory, or from FI_PROVIDER_PATH.
PROVIDER_SRCS := $(wildcard provider/*.c)
NPO_FI := $(BUILD)/lib/libfabric/libnpo-fi.so
# Where Debian's libfabric looks for providers without FI_PROVIDER_PATH;
# expanded when used, since a fresh machine has no compiler before deps.
FABRIC_SYSTEM_PROVDIR = /usr/lib/$(shell $(CC) -print-multiarch)/libfabric
provider: $(NPO_FI)
$(NPO_FI): $(PROVIDER_SRCS) provider/npo_fi.h $(RUNTIME_HDRS) $(LIBNPO) $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -fPIC -shared -fvisibility=hidden -Wl,-z,defs \
		-Iruntime/include -o $@ $(PROVIDER_SRCS) -L$(BUILD)/lib -lnpo -lfabric -lpthread

PC_SUBST = sed -e 's|@prefix@|$(PREFIX)|;s|@libdir@|$(LIBDIR)|' \
	-e 's|@includedir@|$(INCLUDEDIR)|;s|@version@|$(VERSION)|'
$(BUILD)/lib/libnpo.pc: runtime/libnpo.pc.in Makefile
	@mkdir -p $(@D)
	$(PC_SUBST) $< >$@

# The npo netlink family's client and decoders, for npoctl and the selftests.
NPO_NL_LIB := tools/lib/npo_nl.c
NPO_NL_HDRS := tools/lib/npo_nl.h
NPOCTL_SRCS := $(wildcard tools/npoctl/*.c) $(NPO_NL_LIB)
npoctl: $(NPOCTL)
$(NPOCTL): $(NPOCTL_SRCS) $(wildcard tools/npoctl/*.h) $(NPO_NL_HDRS) $(LIBNPO)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(JSON_CFLAGS) $(NL_CFLAGS) -Iruntime/include -Itools/lib \
		-pthread -o $@ $(NPOCTL_SRCS) -L$(BUILD)/lib -lnpo $(JSON_LIBS) \
		$(NL_LIBS) -lm $(RPATH)

NPO_PERF := $(BUILD)/bin/npo-perf
npo-perf: $(NPO_PERF)
$(NPO_PERF): tools/npo-perf/npo-perf.c tools/npo-perf/oob.c tools/npo-perf/oob.h \
		runtime/include/npo_datapath.h $(LIBNPO)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(JSON_CFLAGS) -Iruntime/include -o $@ \
		tools/npo-perf/npo-perf.c tools/npo-perf/oob.c \
		-L$(BUILD)/lib -lnpo $(JSON_LIBS) $(RPATH)

ALLREDUCE := $(BUILD)/examples/npo-allreduce
examples: $(ALLREDUCE)
$(ALLREDUCE): examples/allreduce/allreduce.c runtime/include/npo_datapath.h $(LIBNPO)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -Iruntime/include -o $@ $< -L$(BUILD)/lib -lnpo \
		-lpthread -lm $(RPATH)

firmware: $(FWIMAGE)
$(FWTOOL): firmware/npo-fwtool.c firmware/npo_fw_validate.c \
		firmware/npo_fw_validate.h uapi/linux/npo_fw.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -Ifirmware -o $@ firmware/npo-fwtool.c \
		firmware/npo_fw_validate.c -lz -lm
$(FWIMAGE): firmware/npo-fw.src $(FWTOOL)
	@mkdir -p $(@D)
	SOURCE_DATE_EPOCH=0 $(FWTOOL) build $< -o $@

# The kernel's own PHC test tool, from the kernel source pieces.
TESTPTP := $(BUILD)/bin/testptp
$(TESTPTP): $(BUILD)/.deps-stamp
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -o $@ $(KSELFTEST)/ptp/testptp.c -lrt

SELFTEST_SRCS := $(wildcard selftests/*_test.c)
SELFTESTS := $(patsubst selftests/%.c,$(BUILD)/selftests/%,$(SELFTEST_SRCS))
SELFTEST_LIB := selftests/npo_test_lib.c selftests/npo_nl_lib.c \
	selftests/npo_flood_lib.c selftests/npo_traffic_lib.c firmware/npo_fw_validate.c \
	$(NPO_NL_LIB)
# Helpers the host-side lanes run in the guest, not *_tests of their own:
# one end of tools/vm/two-vm-test.sh, the load of surprise-remove-test.sh.
SELFTEST_HELPERS := $(BUILD)/selftests/npo_fabric_peer \
	$(BUILD)/selftests/npo_surprise_load
selftests: $(SELFTESTS) $(SELFTEST_HELPERS) $(TESTPTP) $(BUILD)/selftests/run_tests.sh
$(BUILD)/selftests/%: selftests/%.c $(SELFTEST_LIB) selftests/npo_test_lib.h \
		selftests/npo_nl_lib.h selftests/npo_flood_lib.h selftests/npo_traffic_lib.h \
		selftests/npo_queue_fixture.h selftests/npo_test_json.h selftests/npo_fi_end.h \
		$(NPO_NL_HDRS) $(LIBNPO) $(BUILD)/.deps-stamp
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(JSON_CFLAGS) $(NL_CFLAGS) $(DRM_CFLAGS) $(HARNESS_CFLAGS) \
		-I$(KSELFTEST) -Iruntime/include -Iselftests -Ifirmware -Itools/lib -o $@ $< \
		$(SELFTEST_LIB) -L$(BUILD)/lib -lnpo $(JSON_LIBS) $(NL_LIBS) $(DRM_LIBS) -lz \
		$(SELFTEST_LIBS_$(notdir $@)) \
		-Wl,-rpath,'$$ORIGIN/../../lib'
# The provider's test speaks libfabric, as applications do.
SELFTEST_LIBS_npo_fi_test := -lfabric
SELFTEST_LIBS_npo_netlink_test := -lpthread
SELFTEST_LIBS_npo_job_test := -lpthread
$(BUILD)/selftests/npo_fi_test: $(NPO_FI)
$(BUILD)/selftests/run_tests.sh: selftests/run_tests.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

FASTPATH := $(BUILD)/bench-bin/fastpath
$(FASTPATH): tools/bench/fastpath.c runtime/include/npo_datapath.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -Iruntime/include -o $@ $< -luring -lpthread

NPO_BENCH := $(BUILD)/bench-bin/npo-bench
$(NPO_BENCH): tools/bench/npo-bench.c uapi/linux/npo.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(JSON_CFLAGS) -o $@ $< $(JSON_LIBS)

# What a host runs: the packages' and make install's contents.
dist: runtime provider npoctl npo-perf firmware
userspace: dist examples selftests $(NPO_BENCH)

# --- host tests under ASan/UBSan ------------------------------------------------
# The provider over a fake libnpo whose devices live in the test's process
# (provider/tests/fake_npo.c), built beside its host test, under ASan too:
# libfabric loads it from there.  What only touches rings is libnpo's own.
FAKE_NPO_DIR := $(BUILD)/host-tests/provider
FAKE_NPO := $(FAKE_NPO_DIR)/libnpo.so.2
FAKE_NPO_SRCS := provider/tests/fake_npo.c runtime/completion.c runtime/strings.c \
	runtime/exchange.c runtime/log.c
$(FAKE_NPO): $(FAKE_NPO_SRCS) provider/tests/fake_npo.h provider/tests/fake_npo.map \
		runtime/libnpo.map $(RUNTIME_HDRS) $(BUILD)/.deps-stamp
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(SAN) -fPIC -shared -Iruntime/include -Iruntime \
		-Wl,-soname,libnpo.so.2 -Wl,--version-script=runtime/libnpo.map \
		-Wl,--version-script=provider/tests/fake_npo.map -o $@ $(FAKE_NPO_SRCS) -lpthread
	ln -sf libnpo.so.2 $(FAKE_NPO_DIR)/libnpo.so
$(FAKE_NPO_DIR)/libnpo-fi.so: $(PROVIDER_SRCS) provider/npo_fi.h $(FAKE_NPO)
	$(CC) $(CFLAGS_COMMON) $(SAN) -fPIC -shared -fvisibility=hidden \
		-Iruntime/include -o $@ $(PROVIDER_SRCS) -L$(FAKE_NPO_DIR) -lnpo \
		-lfabric -lpthread -Wl,-rpath,'$$ORIGIN'
$(BUILD)/host-tests/provider_%_test: provider/tests/provider_%_test.c \
		provider/tests/fake_npo.h selftests/npo_fi_end.h $(FAKE_NPO) \
		$(FAKE_NPO_DIR)/libnpo-fi.so
	$(CC) $(CFLAGS_COMMON) $(SAN) $(HARNESS_CFLAGS) -I$(KSELFTEST) \
		-Iruntime/include -Iprovider/tests -Iselftests -o $@ $< $(HOST_LSAN) \
		-L$(FAKE_NPO_DIR) -lnpo -lfabric -Wl,-rpath,'$$ORIGIN/provider'

# Every host test's body is checked for leaks too (tools/lib/lsan_exit.c).
HOST_LSAN := tools/lib/lsan_exit.c -Wl,--wrap=_exit
HOST_TEST_SRCS := $(wildcard runtime/tests/*_test.c tools/npoctl/tests/*_test.c \
	firmware/tests/*_test.c tools/qemu/tests/*_test.c uapi/tests/*_test.c \
	provider/tests/*_test.c)
HOST_TESTS := $(patsubst %.c,$(BUILD)/host-tests/%,$(notdir $(HOST_TEST_SRCS)))
$(BUILD)/host-tests/runtime_%_test: runtime/tests/runtime_%_test.c $(RUNTIME_SRCS) \
		$(RUNTIME_HDRS) $(BUILD)/.deps-stamp
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(SAN) $(HARNESS_CFLAGS) -I$(KSELFTEST) \
		-Iruntime/include -Iruntime -o $@ $< $(RUNTIME_SRCS) $(HOST_LSAN)
$(BUILD)/host-tests/fw_%_test: firmware/tests/fw_%_test.c firmware/npo_fw_validate.c \
		firmware/npo_fw_validate.h $(FWTOOL) $(BUILD)/.deps-stamp
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(SAN) $(HARNESS_CFLAGS) -I$(KSELFTEST) \
		-Ifirmware -o $@ $< firmware/npo_fw_validate.c $(HOST_LSAN) -lz
$(BUILD)/host-tests/npoctl_%_test: tools/npoctl/tests/npoctl_%_test.c \
		tools/npoctl/print.c tools/npoctl/print.h tools/npoctl/plan.c \
		tools/npoctl/plan.h tools/npoctl/fabric_report.c \
		tools/npoctl/fabric.h tools/npoctl/nccl.c tools/npoctl/nccl.h \
		tools/npoctl/diagnose.c tools/npoctl/diagnose.h $(BUILD)/.deps-stamp
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(SAN) $(JSON_CFLAGS) $(HARNESS_CFLAGS) \
		-I$(KSELFTEST) -Itools/npoctl -o $@ $< tools/npoctl/print.c \
		tools/npoctl/plan.c tools/npoctl/fabric_report.c tools/npoctl/nccl.c \
		tools/npoctl/diagnose.c $(HOST_LSAN) $(JSON_LIBS) -lm

# Every struct the UAPI headers define, for the layout test to build.
UAPI_HDRS := $(wildcard uapi/linux/*.h)
$(BUILD)/host-tests/uapi-structs.h: $(UAPI_HDRS)
	@mkdir -p $(@D)
	sed -n 's/^struct \([a-z0-9_]*\) {$$/NPO_UAPI_STRUCT(\1)/p' $^ >$@
$(BUILD)/host-tests/uapi_%_test: uapi/tests/uapi_%_test.c \
		$(BUILD)/host-tests/uapi-structs.h $(BUILD)/.deps-stamp
	$(CC) $(CFLAGS_COMMON) $(SAN) $(HARNESS_CFLAGS) -I$(KSELFTEST) \
		-I$(BUILD)/host-tests -o $@ $< $(HOST_LSAN)

# The driver's register map and the model's, compiled together: QEMU's
# headers need its configured build tree, and QEMU's dialect (gnu11).
# Every register the model defines, for the test that each has its fact.
$(BUILD)/host-tests/model-regs.h: tools/qemu/npo-regs.h
	@mkdir -p $(@D)
	sed -n 's/^REG32(\([A-Z0-9_]*\), .*/NPO_MODEL_REG(\1)/p' $< >$@
$(BUILD)/host-tests/qemu_%_test: tools/qemu/tests/qemu_%_test.c tools/qemu/npo-regs.h \
		driver/npo_regs.h $(wildcard tools/qemu/tests/kernel-shim/linux/*.h) $(QEMU) \
		$(BUILD)/host-tests/model-regs.h
	@mkdir -p $(@D)
	$(CC) $(subst -std=c11,-std=gnu11,$(CFLAGS_COMMON)) $(SAN) $(HARNESS_CFLAGS) \
		$(shell pkg-config --cflags glib-2.0) -I$(KSELFTEST) \
		-Itools/qemu/tests/kernel-shim -iquote tools/qemu -iquote . \
		-I$(QEMU_SRC)/include -I$(BUILD)/qemu -I$(BUILD)/host-tests -o $@ $< \
		$(HOST_LSAN)

$(HOST_TESTS): tools/lib/lsan_exit.c
host-tests-build: $(HOST_TESTS) $(FWIMAGE) $(NPOCTL)
# libfabric's PSM dependency writes a backtrace file into the working
# folder when a process aborts, as a failed ASSERT does: not in the tree.
host-tests: host-tests-build
	@set -e; for t in $(HOST_TESTS); do \
		FWIMAGE=$(FWIMAGE) IPATH_NO_BACKTRACE=1 $$t; done

# --- lint ----------------------------------------------------------------------
# The newest kernel's checkpatch and kernel-doc, as a maintainer runs them.
CHECKPATCH := perl $(LINT_PIECES)/scripts/checkpatch.pl --no-tree --strict \
	--terse --show-types
checkpatch: $(BUILD)/.deps-stamp
	@echo "  CHECKPATCH driver/ uapi/"
	@$(CHECKPATCH) -f driver/*.c driver/*.h uapi/linux/*.h | \
		grep -v '^total: 0 errors, 0 warnings, 0 checks' | tee $(BUILD)/checkpatch.log
	@! grep -q . $(BUILD)/checkpatch.log
kernel-doc: $(BUILD)/.deps-stamp
	@echo "  KERNEL-DOC driver/ uapi/"
	@perl $(LINT_PIECES)/scripts/kernel-doc -none -v driver/*.c driver/*.h \
		uapi/linux/*.h 2>&1 | grep -v ": info: " | tee $(BUILD)/kernel-doc.log
	@! grep -q . $(BUILD)/kernel-doc.log
# Documentation parses cleanly: tables, references, sections.
rst:
	@echo "  RST     Documentation/"
	@/usr/bin/python3 tools/lint/rst-check.py Documentation/*.rst
	@/usr/bin/python3 tools/lint/abi-check.py
# The tree itself: every driver and model source file in the README's
# table, every shell script clean under shellcheck (.shellcheckrc).
files: $(BUILD)/.deps-stamp
	@echo "  FILES   README table, shellcheck, selftest set-up"
	@/usr/bin/python3 tools/lint/readme-files.py
	@bash tools/lint/shellcheck.sh
	@/usr/bin/python3 tools/lint/selftest-check.py

lint: checkpatch kernel-doc sparse rst files

# --- VM images -------------------------------------------------------------------
INSTALL_ROOT = $(BUILD)/vm/root
initramfs_img = $(BUILD)/vm/initramfs-$(KVER_$(1)).cpio.gz

# --- installing -------------------------------------------------------------------
# make install [DESTDIR=...] [PREFIX=/usr/local]: what a host needs (the
# library, headers, pkg-config file, tools, provider, firmware, man pages,
# bash completion, udev rule and group); Debian's packages install the
# same with PREFIX=/usr and the multiarch LIBDIR.  install-dkms puts the
# module's source where DKMS builds it; install-tests the selftests,
# benchmark and example the VMs run.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# libfabric reads its own directory only: below /usr that is
# FABRIC_SYSTEM_PROVDIR, elsewhere FI_PROVIDER_PATH must name this one.
FABRIC_PROVDIR ?= $(LIBDIR)/libfabric
# udev and systemd-sysusers read /usr/local/lib as well as /usr/lib; the
# kernel looks for firmware in /lib/firmware only.
FIRMWAREDIR ?= /lib/firmware
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
DKMSDIR ?= /usr/src/npo-$(VERSION)

install: dist
	install -D -m 0755 $(NPOCTL) $(DESTDIR)$(BINDIR)/npoctl
	install -D -m 0755 $(NPO_PERF) $(DESTDIR)$(BINDIR)/npo-perf
	install -D -m 0755 $(FWTOOL) $(DESTDIR)$(BINDIR)/npo-fwtool
	install -D -m 0644 $(LIBNPO) $(DESTDIR)$(LIBDIR)/libnpo.so.2.0.0
	ln -sf libnpo.so.2.0.0 $(DESTDIR)$(LIBDIR)/libnpo.so.2
	ln -sf libnpo.so.2 $(DESTDIR)$(LIBDIR)/libnpo.so
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig
	$(PC_SUBST) runtime/libnpo.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/libnpo.pc
	install -D -m 0644 $(NPO_FI) $(DESTDIR)$(FABRIC_PROVDIR)/libnpo-fi.so
	install -D -m 0644 -t $(DESTDIR)$(INCLUDEDIR) runtime/include/npo.h \
		runtime/include/npo_datapath.h
	install -D -m 0644 -t $(DESTDIR)$(INCLUDEDIR)/linux uapi/linux/npo.h \
		uapi/linux/npo_queue.h uapi/linux/npo_fw.h
	install -D -m 0644 $(FWIMAGE) $(DESTDIR)$(FIRMWAREDIR)/npo/npo-fw.bin
	install -D -m 0644 -t $(DESTDIR)$(MANDIR)/man1 man/*.1
	install -D -m 0644 -t $(DESTDIR)$(MANDIR)/man3 man/*.3
	install -D -m 0644 -t $(DESTDIR)$(MANDIR)/man7 man/*.7
	install -D -m 0644 -t $(DESTDIR)$(MANDIR)/man8 man/*.8
	install -D -m 0644 tools/npoctl/npoctl.bash-completion \
		$(DESTDIR)$(BASHCOMPDIR)/npoctl
	install -D -m 0644 tools/udev/60-npo.rules $(DESTDIR)$(UDEVRULESDIR)/60-npo.rules
	install -D -m 0644 tools/udev/npo.sysusers $(DESTDIR)$(SYSUSERSDIR)/npo.conf
	@# Installed on this host (no DESTDIR): the group, the rule and the
	@# library take effect now, as the package's postinst does.
	@if [ -z "$(DESTDIR)" ]; then \
		ldconfig; \
		getent group npo >/dev/null || groupadd --system npo; \
		if [ -d /run/udev ]; then udevadm control --reload && \
			udevadm trigger --subsystem-match=npo --action=change; fi; \
	fi

# The module's source as DKMS builds it: Kbuild, driver/, uapi/ and
# dkms.conf with this version.
install-dkms:
	install -D -m 0644 -t $(DESTDIR)$(DKMSDIR) Kbuild
	install -D -m 0644 -t $(DESTDIR)$(DKMSDIR)/driver driver/Kbuild \
		$(wildcard driver/*.[ch])
	install -D -m 0644 -t $(DESTDIR)$(DKMSDIR)/uapi/linux $(wildcard uapi/linux/*.h)
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf >$(DESTDIR)$(DKMSDIR)/dkms.conf

install-tests: userspace
	install -D -m 0755 -t $(DESTDIR)/usr/lib/npo/selftests $(SELFTESTS) \
		$(SELFTEST_HELPERS) $(BUILD)/selftests/run_tests.sh
	install -D -m 0755 $(NPO_BENCH) $(DESTDIR)/usr/lib/npo/bench/npo-bench
	install -D -m 0755 $(ALLREDUCE) $(DESTDIR)/usr/lib/npo/examples/npo-allreduce
	install -D -m 0755 $(TESTPTP) $(DESTDIR)/usr/lib/npo/selftests/testptp
	install -D -m 0755 $(KSELFTEST)/ptp/phc.sh $(DESTDIR)/usr/lib/npo/selftests/phc.sh

# Debian packages from a copy of the tree, checked by lintian.
deb: deps
	bash tools/pkg/make-deb.sh $(BUILD)/deb

define initramfs_rules
$(call initramfs_img,$(1)): $(call kmod_dir,$(1))/driver/npo.ko $(SELFTESTS) $(SELFTEST_HELPERS) $(TESTPTP) \
		$(BUILD)/selftests/run_tests.sh $(NPOCTL) $(NPO_PERF) $(LIBNPO) $(FWIMAGE) \
		$(NPO_BENCH) $(ALLREDUCE) $(NPO_FI) \
		$(wildcard tools/vm/*) $(wildcard man/*)
	rm -rf $(INSTALL_ROOT)-$(1)
	$(MAKE) -s install install-tests DESTDIR=$(INSTALL_ROOT)-$(1) PREFIX=/usr \
		LIBDIR=/usr/lib FABRIC_PROVDIR=$(FABRIC_SYSTEM_PROVDIR)
	install -D -m 0644 $(call kmod_dir,$(1))/driver/npo.ko \
		$(INSTALL_ROOT)-$(1)/lib/modules/$(KVER_$(1))/extra/npo.ko
	bash tools/vm/mkinitramfs.sh $(KVER_$(1)) $(KMODS_$(1)) \
		$(INSTALL_ROOT)-$(1) $$@
endef
# Images are named by kernel version: until deps has written kernels.mk
# (a clean clone's first make) there is none, and no rule to make.
$(foreach k,$(RULE_KERNELS),$(if $(KVER_$(k)),$(eval $(call initramfs_rules,$(k)))))
initramfs: $(foreach k,$(KERNELS),$(call initramfs_img,$(k)))
debug-initramfs: $(if $(KVER_debug),$(call initramfs_img,debug))
	@test -n "$(KVER_debug)" || { echo "no debug kernel: run make check-debug"; exit 1; }

# Open MPI's collectives checked and timed over whatever transport mpirun
# picks; the MPI lanes run it in VMs with Open MPI unpacked over the
# initramfs (tools/vm/mkmpi-cpio.sh).
MPI_TEST := $(BUILD)/mpi/npo-mpi-test
MPI_CPIO := $(BUILD)/vm/openmpi.cpio.gz
$(MPI_TEST): tools/mpi/npo-mpi-test.c $(BUILD)/.deps-stamp
	@mkdir -p $(@D)
	mpicc.openmpi $(filter-out -D%,$(CFLAGS_COMMON)) -o $@ $<
MPI_LAUNCH := tools/vm/mpi-rsh-agent tools/vm/mpi-rexec
$(MPI_CPIO): tools/vm/mkmpi-cpio.sh $(MPI_TEST) $(MPI_LAUNCH) $(call initramfs_img,$(firstword $(KERNELS)))
	bash tools/vm/mkmpi-cpio.sh $(INSTALL_ROOT)-$(firstword $(KERNELS)) $@ $(MPI_TEST) $(MPI_LAUNCH)
mpi: $(MPI_CPIO)

# --- the three commands of the README ----------------------------------------------
check: deps
	@$(MAKE) --no-print-directory all initramfs mpi host-tests-build
	@BUILD=$(BUILD) bash tools/vm/check.sh $(KERNELS)

# The debug kernel is built once (see Documentation/testing.rst for how
# long) and cached; the second make sees the kernels-debug.mk it wrote.
check-debug: deps
	@bash tools/setup/debug-kernel.sh $(BUILD)
	@$(MAKE) --no-print-directory all debug-initramfs
	@BUILD=$(BUILD) bash tools/vm/check.sh --vm-only debug

# The packages on a full Debian 12 host, both kernels (tools/vm/host-test.sh,
# Documentation/testing.rst): DKMS compiles in TCG, so it is a lane of
# its own, run before an issue touching packaging is called done.
check-host: deps
	@$(MAKE) --no-print-directory qemu deb
	@BUILD=$(BUILD) bash tools/vm/host-test.sh $(KERNELS)

demo: deps
	@$(MAKE) --no-print-directory all initramfs
	@BUILD=$(BUILD) tools/vm/npo-vm --kernel 6.1 --devices 8 --topology ring -- \
		sh -c '/sbin/modprobe npo && npoctl dev && sleep 1 && npoctl link && npoctl topo'

bench: deps
	@$(MAKE) --no-print-directory all initramfs mpi $(FASTPATH)
	@BUILD=$(BUILD) bash tools/bench/run.sh

# Each tools/mutations/*.patch breaks one thing a test claims to check:
# applied, built and tested one at a time; a test that still passes fails
# the run.  Not in make check: it rebuilds and boots VMs for each.
check-mutations: deps
	@$(MAKE) --no-print-directory all initramfs qemu host-tests-build
	@BUILD=$(BUILD) bash tools/mutations/run.sh

# Every target above, from a freshly debootstrapped Debian 12 that has
# never seen the project (tools/setup/fresh-root-test.sh): what a new
# machine needs is installed by the targets themselves.  FRESH_ROOT_FLAGS:
# --quick (make check until its VM lanes), --whole-debug, --commit REV,
# --again TARGET (only that, whole, in the root an earlier run left).
check-fresh-root:
	@bash tools/setup/fresh-root-test.sh $(FRESH_ROOT_FLAGS) $(BUILD)/fresh-root

clean:
	rm -rf $(BUILD)/kmod $(BUILD)/lib $(BUILD)/bin $(BUILD)/firmware \
		$(BUILD)/selftests $(BUILD)/host-tests $(BUILD)/vm $(BUILD)/bench \
		$(BUILD)/bench-bin
distclean:
	rm -rf $(BUILD)
