"""A script that dies of torch's out-of-memory error gets a report, not only a traceback: where it
happened and what the allocator held (docs/memory.md, "Out of memory"). Read at the interpreter's
exit from the uncaught exception Python kept (sys.last_value, sys.last_traceback): its frames are
the stack at the raise, with their locals, so the probe costs nothing while the script trains.

- where: the innermost module instance with a `self` on the stack (its path in the model's tree);
  in a backward, whose stack names none, the instance whose backward was running, read from the
  autograd graph the error left (backward_graph.py); the phase (backward where torch's autograd
  backward is on the stack, optimizer where a frame is in torch/optim, forward where a module is,
  else the step clock's), the call that raised (the innermost frame's function and line, where
  that is a library's) and the innermost line of the user's own code;
- what the autograd graphs held for their backward at the raise, by the instance that saved it;
- what was live (CUDA): memory_allocated, memory_reserved, max_memory_allocated, the device's free
  memory (mem_get_info), the largest inactive block of the allocator's segments (memory_snapshot)
  and its retries. The request's size is in the message, which advisor parses.
"""

import os

import torch

from advisor_probe import backward_graph, call_inputs
from advisor_probe.sources import line_text, traced
from advisor_probe.steps import BACKWARD, DATA, FORWARD, LOSS, OPTIMIZER, OUTSIDE

MESSAGE_BYTES = 2000  # the error's first line, bounded: torch's are a few hundred bytes

_PHASE_NAMES = {DATA: "data", FORWARD: "forward", BACKWARD: "backward", OPTIMIZER: "optimizer",
                LOSS: "loss", OUTSIDE: ""}
_CALL_FUNCTIONS = ("_call_impl", "_wrapped_call_impl")


def error_classes():
    """torch.OutOfMemoryError (torch 2.5 on, where torch.cuda's is an alias of it) and
    torch.cuda.OutOfMemoryError (1.13 to 2.4): whichever this torch has."""
    found = tuple(c for c in (getattr(torch, "OutOfMemoryError", None),
                              getattr(torch.cuda, "OutOfMemoryError", None)) if c is not None)
    return tuple(dict.fromkeys(found))


def is_out_of_memory(error):
    classes = error_classes()
    return bool(classes) and isinstance(error, classes)


def _frames(traceback):
    """The traceback's frames, outermost first, each with the line it was at."""
    frames = []
    while traceback is not None:
        frames.append((traceback.tb_frame, traceback.tb_lineno))
        traceback = traceback.tb_next
    return frames


def _torch_file(filename, part):
    return ("torch" + os.sep + part) in os.path.abspath(filename)


def _module_of(frame):
    module = frame.f_locals.get("self")
    return module if isinstance(module, torch.nn.Module) else None


def where(traceback, path_of, clock_phase, parameter_paths=None):
    """{"path", "phase", "op", "source", "path_note"} from the stack at the raise. `path_of(module)`
    is the instance's path or None; `clock_phase` the step clock's phase code, for a raise outside any
    module, backward or optimizer step (the loss, the data); `parameter_paths` maps
    id(parameter) to its instance's path, for a backward's instance; `path_note` says why a
    backward's instance is not told, where that is known."""
    frames = _frames(traceback)
    path, module_seen, phase, source, note = "", False, None, None, ""
    for frame, line in frames:
        code = frame.f_code
        if backward_graph.is_engine_call(code):
            phase = "backward"
        elif phase is None and _torch_file(code.co_filename, "optim"):
            phase = "optimizer"
        module = _module_of(frame)
        if module is not None:
            module_seen = True
            known = path_of(module)
            if known is not None:
                path = known
        if traced(code.co_filename):
            source = [code.co_filename, line, line_text(code.co_filename, line)]
    if phase is None:
        phase = "forward" if module_seen else _PHASE_NAMES.get(clock_phase, "")
    if phase == "backward" and not path:
        path, note = backward_graph.running_instance([f for f, _ in frames],
                                                     parameter_paths or {})
    op = ""
    if frames and not traced(frames[-1][0].f_code.co_filename):
        # A call inside a library (torch's F.linear, a package's layer); a raise in the user's own
        # code is its source already.
        frame, line = frames[-1]
        op = "%s: %s" % (frame.f_code.co_name, line_text(frame.f_code.co_filename, line))
    return {"path": path, "phase": phase, "op": op, "source": source, "path_note": note}


def kept_for_backward(traceback, parameter_paths, parameters):
    """What the autograd graphs live at the raise keep for their backward, by instance
    (backward_graph.kept_for_backward): the activations a checkpoint of their instance frees."""
    return backward_graph.kept_for_backward([f for f, _ in _frames(traceback)], parameter_paths,
                                            parameters)


def outermost_call(traceback):
    """(module, args) of the outermost module call on the stack, or None: the model's batch where
    the probe has not seen one yet (it ran out of memory in its first step)."""
    for frame, _ in _frames(traceback):
        module = _module_of(frame)
        if module is not None and frame.f_code.co_name in _CALL_FUNCTIONS:
            # Module._call_impl(self, *args) on torch 2.x, (self, *input) on 1.x.
            args = frame.f_locals.get("args", frame.f_locals.get("input", ()))
            return module, tuple(args) if isinstance(args, tuple) else ()
    return None


def _largest_free_block(device):
    """The largest block no tensor holds in the allocator's segments on `device`, in bytes."""
    largest = 0
    for segment in torch.cuda.memory_snapshot():
        if segment.get("device") != device:
            continue
        for block in segment.get("blocks", []):
            if block.get("state") == "inactive":
                largest = max(largest, int(block.get("size", 0)))
    return largest


def allocator(device):
    """What the caching allocator held on `device` (an index), or None without CUDA."""
    if device is None or not torch.cuda.is_available():
        return None
    free = None
    if hasattr(torch.cuda, "mem_get_info"):
        free = int(torch.cuda.mem_get_info(device)[0])
    stats = torch.cuda.memory_stats(device)
    conf = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", os.environ.get("PYTORCH_ALLOC_CONF", ""))
    return {"allocated_bytes": int(torch.cuda.memory_allocated(device)),
            "reserved_bytes": int(torch.cuda.memory_reserved(device)),
            "peak_allocated_bytes": int(torch.cuda.max_memory_allocated(device)),
            "device_total_bytes": int(torch.cuda.get_device_properties(device).total_memory),
            "device_free_bytes": free,
            "largest_free_block_bytes": _largest_free_block(device),
            "alloc_retries": int(stats.get("num_alloc_retries", 0)),
            "expandable_segments": "expandable_segments:true" in conf.replace(" ", "").lower()}


def one_line(place, message):
    """`where`'s place and the error's message as one line, for an autotest's run that ran out
    of memory again: "in the forward pass of 1 at train.py:34: CUDA out of memory. ..."."""
    phase, path, source = place["phase"], place["path"], place["source"]
    words = []
    if phase:
        words.append("in the %s pass" % phase if phase in ("forward", "backward")
                     else "in the %s" % phase)
    if path:
        words.append("of %s" % path)
    if source:
        words.append("at %s:%d" % (os.path.basename(source[0]), source[1]))
    return "%s: %s" % (" ".join(words) or "in the step", message)


def message_of(error):
    text = str(error).strip().splitlines()
    return text[0][:MESSAGE_BYTES] if text else type(error).__name__
