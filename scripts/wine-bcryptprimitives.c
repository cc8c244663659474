/* Test-only, for Wine 8 (Debian 12's), which has no bcryptprimitives.dll:
 * Rust's std on Windows 10+ takes its random numbers (HashMap seeds) from
 * ProcessPrng there, so the addon imports it. Windows 10 and later have the
 * DLL; this one answers from RtlGenRandom (advapi32's SystemFunction036),
 * which Wine has. scripts/platform-tools.mjs builds it with mingw-w64 into
 * the test prefix's system32; it is never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG n = length > 0x10000000 ? 0x10000000 : (ULONG)length;
    if (!SystemFunction036(data, n)) return FALSE;
    data += n;
    length -= n;
  }
  return TRUE;
}
