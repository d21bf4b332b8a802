// Restricting scaled_dot_product_attention to one of its CUDA backends (flash, efficient, cudnn,
// math) for the rest of the process, as Python's torch.nn.attention.sdpa_kernel(backend) does.
// LibTorch grew these switches over several versions; this file is the only place that knows.
#pragma once

#include <string>

namespace advisor {

// "" when this LibTorch can run SDPA with only `backend` enabled; otherwise why not, starting
// with "not applicable: ". Throws std::invalid_argument for a name that is no backend.
std::string SdpaBackendUnavailableReason(const std::string& backend);

// Enables `backend` and disables the other backends in at::globalContext(). SDPA then raises an
// error ("No available kernel"; "Invalid backend" on 2.11) where that backend cannot take the
// inputs (a dtype, a mask, a head dimension it does not support): the honest outcome for a
// candidate that asked for it. Throws std::invalid_argument where
// SdpaBackendUnavailableReason(backend) is not "".
void EnableOnlySdpaBackend(const std::string& backend);

}  // namespace advisor
