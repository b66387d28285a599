/*
 * A stand-in for the bcryptprimitives.dll of Windows 10 and later, for
 * running Go's Windows binaries under Wine 8.0, which has no such DLL.
 *
 * Since Go 1.22 the runtime of a Windows binary takes its randomness from
 * ProcessPrng in bcryptprimitives.dll, loaded from System32 only, and dies
 * at start-up without it. ProcessPrng fills a buffer from the system's
 * generator and is documented to always succeed; RtlGenRandom (exported by
 * advapi32 as SystemFunction036, and implemented by Wine) is the older way
 * to the same generator, so the stand-in forwards to it. Built and copied
 * into the Wine prefix by ci/install-wine.sh; test-only, never shipped.
 */
#include <windows.h>

/* RtlGenRandom, declared here rather than through ntsecapi.h, whose macro
 * renames it: the name advapi32 exports is what the import needs. */
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
	/* RtlGenRandom takes a ULONG length; a SIZE_T may be larger. */
	const SIZE_T most = 1u << 30;

	while (length > 0) {
		ULONG n = (ULONG)(length < most ? length : most);
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		length -= n;
	}
	return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved)
{
	(void)instance;
	(void)reason;
	(void)reserved;
	return TRUE;
}
