// The bytes operator new has handed out in this test binary: for tests that bound what a
// computation allocates. A cost quadratic in its input shows as bytes, deterministically, where
// timing it would not.
#pragma once

#include <cstddef>

namespace advisor::testing {

// Since the process started; it never decreases. Take the difference around the computation.
std::size_t AllocatedBytes();

}  // namespace advisor::testing
