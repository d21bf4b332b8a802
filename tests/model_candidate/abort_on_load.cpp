// Preloaded (LD_PRELOAD, through a test recipe's `env`) into the autotest end-to-end test's
// candidate worker, which then dies with SIGABRT before main, the way a broken native extension
// takes a process down. Test only: no production code knows about it.
#include <cstdlib>

__attribute__((constructor)) static void AbortOnLoad() { std::abort(); }
