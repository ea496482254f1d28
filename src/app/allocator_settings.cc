// jemalloc's settings for the server, read by jemalloc itself at its start (the
// `malloc_conf` symbol; MALLOC_CONF in the environment still overrides them). Linked only
// where jemalloc is (src/CMakeLists.txt).
//
// Freed pages are handed back to the kernel more slowly than jemalloc's default (10 s,
// and at once for "muzzy" pages): a commit allocates and frees metadata-sized buffers
// (tens to hundreds of KiB) several times, and with the default a steady stream of
// commits spent a tenth of the server's CPU in madvise and in faulting the same pages
// back in, zeroed. Measured: W7 at 16 writers, 1.76 -> 1.61 ms of server CPU per commit
// (docs/DECISIONS.md, 2026-12-04). Memory that sits free is still returned, after 30 s.

extern "C" {
// A mutable global by jemalloc's interface.
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
const char* malloc_conf = "dirty_decay_ms:30000,muzzy_decay_ms:30000";
}
