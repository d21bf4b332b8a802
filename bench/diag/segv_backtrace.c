/* Diagnostic only: LD_PRELOAD it to print a native backtrace (library and offset per frame) when
   the process receives SIGSEGV. Build: gcc -shared -fPIC -o segv.so segv_backtrace.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void on_segv(int sig, siginfo_t *info, void *ctx) {
  void *frames[64];
  int n = backtrace(frames, 64);
  char line[512];
  int len = snprintf(line, sizeof line, "SEGV at %p\n", info->si_addr);
  write(2, line, len);
  for (int i = 0; i < n; ++i) {
    Dl_info dl;
    if (dladdr(frames[i], &dl) && dl.dli_fname) {
      len = snprintf(line, sizeof line, "frame %d %s +0x%lx %s\n", i, dl.dli_fname,
                     (unsigned long)((char *)frames[i] - (char *)dl.dli_fbase),
                     dl.dli_sname ? dl.dli_sname : "?");
    } else {
      len = snprintf(line, sizeof line, "frame %d %p\n", i, frames[i]);
    }
    write(2, line, len);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

__attribute__((constructor)) static void install(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_segv;
  action.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &action, NULL);
}
