// Handing memory the process has freed back to the system.
#pragma once

namespace advisor {

// Small blocks freed into malloc's heap stay resident until malloc needs them again, and a large
// array is mapped afresh rather than taken from there: a process that frees gigabytes of small
// blocks and then builds large arrays would hold both. This returns the freed heap's pages (with
// glibc; elsewhere it does nothing).
void ReturnFreedMemory();

}  // namespace advisor
