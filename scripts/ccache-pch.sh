# Sourced by the scripts that build advisor (setup.sh, odr-check.sh): where ccache is the compiler
# launcher, it caches the units that use LibTorch's precompiled header (cmake/TorchPch.cmake) only
# when it may be sloppy about #defines and __TIME__ (ccache's manual, "Precompiled headers"); it
# otherwise compiles them uncached. Set here for these builds alone, beside the user's own
# sloppiness, not in the user's ccache configuration. GCC's units need nothing more: CMake hands
# them the header with -include, which ccache follows.
if command -v ccache >/dev/null; then
  advisor_sloppiness="$(ccache --get-config sloppiness 2>/dev/null || true)"
  export CCACHE_SLOPPINESS="${advisor_sloppiness:+$advisor_sloppiness,}pch_defines,time_macros"
  unset advisor_sloppiness
fi
