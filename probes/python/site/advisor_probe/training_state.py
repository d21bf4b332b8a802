"""What the training holds per process, measured once after the first optimizer step: the bytes
of the parameters the optimizers train, of their gradients and of the optimizers' state (the
tensors themselves: under FSDP, this rank's shards), the data-parallel wrapper around the model,
and how many of the first step's forward passes synchronised gradients (DDP's
require_backward_grad_sync, read as each pass begins). advisor's sharding advice and the no_sync
advice rest on these (docs/script-mode.md, "The protocol")."""

import torch

WRAPPERS = ("DistributedDataParallel", "FullyShardedDataParallel")


def _bytes(tensor):
    return tensor.numel() * tensor.element_size() if isinstance(tensor, torch.Tensor) else 0


class TrainingState:
    def __init__(self):
        self._wrapper = None
        self._forwards = 0         # the data-parallel model's forward passes in the first step
        self._synced = 0           # of them, those whose backward all-reduces gradients
        self._measured = None

    def outer_call(self, module):
        """A module called outermost during the first step (before the model is known)."""
        name = type(module).__name__
        if name not in WRAPPERS or not torch.is_grad_enabled():
            return
        self._wrapper = module
        self._forwards += 1
        if getattr(module, "require_backward_grad_sync", True):
            self._synced += 1

    def measure(self, optimizers):
        """After each optimizer step of the first step, while its gradients are still there: the
        last (with several optimizers stepping in a row) sees every optimizer's state."""
        parameters = {}
        state = 0
        for optimizer in optimizers:
            for group in optimizer.param_groups:
                for parameter in group["params"]:
                    parameters[id(parameter)] = parameter
            for values in optimizer.state.values():
                state += sum(_bytes(value) for value in values.values())
        self._measured = {
            "parameter_bytes": sum(_bytes(p) for p in parameters.values()),
            "gradient_bytes": sum(_bytes(p.grad) for p in parameters.values()),
            "optimizer_state_bytes": state,
        }

    def describe(self):
        if self._measured is None:
            return None
        wrapper = self._wrapper
        strategy = getattr(wrapper, "sharding_strategy", None)
        return dict(self._measured,
                    wrapper=type(wrapper).__name__ if wrapper is not None else "",
                    sharding_strategy=getattr(strategy, "name", "") if strategy is not None
                    else "",
                    micro_steps=self._forwards,
                    synced_micro_steps=self._synced)
