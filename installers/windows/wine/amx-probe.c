/*
 * amx-probe: runs one AMX tile instruction (TILEZERO after LDTILECFG), as ONNX Runtime's MLAS
 * does before its first TILELOADD, in a child process, and says what happened. Used by
 * installers/windows/wine-smoke.sh to show, on a CPU with AMX, that a process without the
 * permission dies of SIGILL and that amx-permit.so (LD_PRELOAD) lets it run. Never shipped.
 *
 * Prints one line and exits with:
 *   0  "ran"     the instruction ran
 *   3  "sigill"  the process died of SIGILL (no permission: what Wine's processes hit)
 *   2  "no-amx"  this CPU has no AMX (CPUID.(EAX=7,ECX=0):EDX[24] clear, or the OS has not
 *                enabled tile data in XCR0 bits 17-18): nothing to show on this machine
 *   1  anything else
 */
#include <cpuid.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int cpu_has_amx(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !((d >> 24) & 1))
        return 0;
    /* XGETBV(0): the OS enabled XTILECFG (bit 17) and XTILEDATA (bit 18). */
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & (3u << 17)) == (3u << 17);
}

/* The 64-byte tile configuration: palette 1, tile 0 of 1 row x 4 bytes. */
__attribute__((aligned(64))) static unsigned char config[64];

static void run_tile_instruction(void) {
    memset(config, 0, sizeof config);
    config[0] = 1;          /* palette 1 */
    config[16] = 4;         /* tile 0: 4 bytes per row (colsb[0], little-endian u16) */
    config[48] = 1;         /* tile 0: 1 row (rows[0]) */
    /* LDTILECFG [rdi]; TILEZERO tmm0; TILERELEASE, as raw bytes so that any assembler builds
     * it (encodings from the Intel SDM, vol. 2). */
    __asm__ volatile(
        ".byte 0xc4, 0xe2, 0x78, 0x49, 0x07\n\t" /* ldtilecfg (%rdi) */
        ".byte 0xc4, 0xe2, 0x7b, 0x49, 0xc0\n\t" /* tilezero %tmm0 */
        ".byte 0xc4, 0xe2, 0x78, 0x49, 0xc0\n\t" /* tilerelease */
        :
        : "D"(config)
        : "memory");
}

int main(void) {
    if (!cpu_has_amx()) {
        puts("no-amx");
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        run_tile_instruction();
        _exit(0);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        return 1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        puts("ran");
        return 0;
    }
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGILL) {
        puts("sigill");
        return 3;
    }
    printf("other %d\n", status);
    return 1;
}
