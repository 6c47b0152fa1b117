/* A stand-in for Windows' bcryptprimitives.dll, for the Wine test only (never shipped).
 *
 * Rust's standard library (1.78 and later) asks bcryptprimitives.dll for ProcessPrng, which
 * Windows 10 and 11 have and Wine 8 (Debian 12) lacks, so without it no Rust program starts
 * under that Wine. This forwards ProcessPrng to RtlGenRandom (advapi32's SystemFunction036),
 * which Wine implements. installers/windows/wine-smoke.sh builds it with mingw-w64 into the test
 * prefix's system32 folder. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG part = length > 0x7fffffff ? 0x7fffffff : (ULONG)length;
        if (!SystemFunction036(data, part))
            return FALSE;
        data += part;
        length -= part;
    }
    return TRUE;
}
