/*
 * amx-permit.so: a preload library for the Wine smoke test (installers/windows/wine-smoke.sh),
 * never shipped. Its constructor asks Linux for permission to use AMX tile data in the process
 * it is loaded into, as ONNX Runtime's Linux build does for itself.
 *
 * Why: on a CPU with AMX (Intel Sapphire Rapids and later), Linux enables the AMX state in
 * XCR0 but traps its first use until the process requests it with
 * arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) (Documentation/arch/x86/xstate.rst); a
 * process that did not ask dies of SIGILL. The Windows onnxruntime.dll reads AMX from
 * CPUID/XCR0 and uses it for int8 GEMMs (MLAS), as it may on Windows, which grants AMX to
 * every process; Wine 8 never asks the kernel, so the embedder died under Wine on such CPUs
 * ("illegal instruction in 64-bit code", `tileloadd`). The permission is per process and
 * cleared by execve(), so the library is preloaded (LD_PRELOAD) into every process of the test,
 * Wine's own included, and asks again in each one.
 *
 * On a CPU without AMX the request fails with EINVAL or EOPNOTSUPP and nothing changes.
 *
 * With VIDYA_AMX_PERMIT_LOG=FILE each process appends one line to FILE:
 *   "<pid> <program> amx=<yes|no> permit=<ok|errno name>"
 * so the test can check that the library ran inside the Windows program's process.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARCH_REQ_XCOMP_PERM 0x1023 /* arch/x86/include/uapi/asm/prctl.h */
#define XFEATURE_XTILEDATA 18      /* arch/x86/include/asm/fpu/types.h */

/* CPUID.(EAX=7,ECX=0):EDX[24] is AMX-TILE (Intel SDM, vol. 2A, CPUID). */
static int cpu_has_amx(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    return (d >> 24) & 1;
}

__attribute__((constructor)) static void amx_permit(void) {
    long r = syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA);
    int err = r == 0 ? 0 : errno;
    const char *log = getenv("VIDYA_AMX_PERMIT_LOG");
    if (!log || !*log)
        return;
    char exe[512];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    char line[800];
    int len = snprintf(line, sizeof line, "%d %s amx=%s permit=%s\n", (int)getpid(), exe,
                       cpu_has_amx() ? "yes" : "no", err == 0 ? "ok" : strerrorname_np(err));
    int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (len > 0 && write(fd, line, (size_t)len) < 0) {
        /* the log is only for the test's check; nothing to do */
    }
    close(fd);
}
