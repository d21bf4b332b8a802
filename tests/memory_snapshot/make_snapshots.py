#!/usr/bin/env python3
"""Writes the memory-snapshot fixtures of tests/data/snapshots/ (no GPU needed).

    /usr/bin/python3 tests/memory_snapshot/make_snapshots.py            # the fixtures and manifest
    /usr/bin/python3 tests/memory_snapshot/make_snapshots.py --big OUT --entries 1000000

A snapshot is what torch.cuda.memory._dump_snapshot pickles (protocol 4, plain dicts and lists):
`segments` (each with its `blocks`), `device_traces` (one list of trace entries per device),
`allocator_settings` and, with global_record_annotations, `external_annotations`. Like torch's
own, the dicts share their key strings and the entries share their frame lists, so the pickle
memoizes them. The snapshots come from a small caching allocator simulated here: blocks split
from 2 MiB (small) and 20 MiB (large) segments in 512-byte steps, freed blocks merged with their
free neighbours, every event recorded as torch records it. The simulation keeps its own
accounting (the bytes requested and live after every event); manifest.json has each fixture's
peak and end state from it, which the tests compare with advisor's replay.

Fixtures:
- hand_step.pickle: twelve events whose peak (10.5 MiB after the second) is worked out by hand
  below (hand_step) and in tests/memory_snapshot/snapshot_replay_test.cpp; annotated forward,
  backward and optimizer ranges and two module ranges; an OOM entry.
- training_steps.pickle: three training steps of a four-layer model, parameters allocated
  before the history began, annotations on, an OOM entry at the end.
- legacy_layout.pickle: such steps as torch 2.0 wrote them: no time_us, no block addresses, no
  annotations, no allocator settings, no OOM.
- hostile/*.pickle: os.system named by GLOBAL (protocol 2) and by STACK_GLOBAL inside a
  snapshot (protocol 4), containers nested past the bound, a string whose length runs past the
  file, a snapshot cut in half, a pickle that is no snapshot, a field of the wrong type.

--big writes one snapshot of about ENTRIES events (64-layer steps) for docs/benchmarks.md and
prints the simulation's accounting of it.
"""

import argparse
import json
import os
import pickle

KB = 1024
MB = 1024 * 1024
SMALL_SEGMENT = 2 * MB
LARGE_SEGMENT = 20 * MB
SEGMENT_BASE = 0x7F0000000000

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "data", "snapshots")


def round_size(size):
    return max(512, (size + 511) // 512 * 512)


class Frames:
    """Frame dicts and frame lists shared between entries, as torch's symbolizer shares them."""

    def __init__(self):
        self._frames = {}
        self._stacks = {}

    def stack(self, *frames):
        if frames in self._stacks:
            return self._stacks[frames]
        stack = []
        for filename, line, name in frames:
            key = (filename, line, name)
            if key not in self._frames:
                self._frames[key] = {"name": name, "filename": filename, "line": line}
            stack.append(self._frames[key])
        self._stacks[frames] = stack
        return stack


TORCH = "/usr/lib/python3/dist-packages/torch"
FRAMES = Frames()
EMPTY = []


def forward_stack(layer):
    return FRAMES.stack((TORCH + "/nn/modules/linear.py", 114, "forward"),
                        (TORCH + "/nn/modules/module.py", 1501, "_call_impl"),
                        ("/home/user/model.py", 20 + layer, "forward"),
                        (TORCH + "/nn/modules/module.py", 1501, "_call_impl"),
                        ("/home/user/train.py", 41, "main"))


def optimizer_stack():
    return FRAMES.stack((TORCH + "/optim/adam.py", 363, "_single_tensor_adam"),
                        (TORCH + "/optim/optimizer.py", 280, "wrapper"),
                        ("/home/user/train.py", 45, "main"))


def setup_stack():
    return FRAMES.stack(("/home/user/train.py", 30, "main"))


class Allocator:
    """A caching allocator small enough to check by eye; records what torch records."""

    def __init__(self, record_time=True):
        self.segments = []   # {"address", "total_size", "blocks": [[addr, size, req, state, frames]]}
        self.trace = []
        self.recording = False
        self.record_time = record_time
        self.time_us = 1_000_000
        self.live = {}        # address -> requested size
        self.live_bytes = 0
        self.accounting = []  # requested bytes live after each recorded event
        self.start_bytes = None
        self.next_address = SEGMENT_BASE

    def _record(self, action, addr, size, frames):
        if not self.recording:
            return
        self.time_us += 3
        entry = {"action": action, "addr": addr, "size": size, "stream": 0, "frames": frames}
        if self.record_time:
            entry["time_us"] = self.time_us
        self.trace.append(entry)
        self.accounting.append(self.live_bytes)

    def start_recording(self):
        self.recording = True
        self.start_bytes = self.live_bytes

    def now(self):
        self.time_us += 1
        return self.time_us

    def _find_free(self, size, large):
        for segment in self.segments:
            if segment["large"] != large:
                continue
            for index, block in enumerate(segment["blocks"]):
                if block[3] == "inactive" and block[1] >= size:
                    return segment, index
        return None, None

    def malloc(self, requested, frames):
        size = round_size(requested)
        large = size > MB
        segment, index = self._find_free(size, large)
        if segment is None:
            total = LARGE_SEGMENT if large and size <= LARGE_SEGMENT else SMALL_SEGMENT
            if size > total:
                total = (size + 2 * MB - 1) // (2 * MB) * (2 * MB)
            segment = {"address": self.next_address, "total_size": total, "large": large,
                       "blocks": [[self.next_address, total, 0, "inactive", EMPTY]]}
            self.next_address += total + 64 * MB
            self.segments.append(segment)
            self._record("segment_alloc", segment["address"], total, frames)
            index = 0
        block = segment["blocks"][index]
        remaining = block[1] - size
        if remaining >= (MB if large else 512):
            segment["blocks"].insert(index + 1, [block[0] + size, remaining, 0, "inactive", EMPTY])
            block[1] = size
        block[2] = requested
        block[3] = "active_allocated"
        block[4] = frames
        self.live[block[0]] = requested
        self.live_bytes += requested
        self._record("alloc", block[0], requested, frames)
        return block[0]

    def free(self, address, frames=EMPTY):
        requested = self.live.pop(address)
        self._record("free_requested", address, requested, frames)
        self.live_bytes -= requested
        for segment in self.segments:
            blocks = segment["blocks"]
            for index, block in enumerate(blocks):
                if block[0] != address:
                    continue
                block[2], block[3], block[4] = 0, "inactive", EMPTY
                self._record("free_completed", address, requested, frames)
                # Merge with free neighbours, as the allocator does.
                if index + 1 < len(blocks) and blocks[index + 1][3] == "inactive":
                    block[1] += blocks.pop(index + 1)[1]
                if index > 0 and blocks[index - 1][3] == "inactive":
                    blocks[index - 1][1] += blocks.pop(index)[1]
                return
        raise AssertionError("no block at %x" % address)

    def oom(self, requested, device_free):
        if self.recording:
            self.time_us += 3
            entry = {"action": "oom", "device_free": device_free, "size": requested, "stream": 0,
                     "frames": EMPTY}
            if self.record_time:
                entry["time_us"] = self.time_us
            self.trace.append(entry)
            self.accounting.append(self.live_bytes)

    def snapshot(self, annotations, legacy=False):
        segments = []
        for segment in self.segments:
            blocks = []
            for address, size, requested, state, frames in segment["blocks"]:
                block = {"size": size, "requested_size": requested, "state": state,
                         "frames": frames}
                if not legacy:
                    block = {"address": address, **block}
                blocks.append(block)
            allocated = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
            requested = sum(b["requested_size"] for b in blocks)
            segments.append({
                "device": 0, "address": segment["address"], "total_size": segment["total_size"],
                "allocated_size": allocated, "active_size": allocated,
                "requested_size": requested, "stream": 0,
                "segment_type": "large" if segment["large"] else "small",
                "segment_pool_id": (0, 0), "is_expandable": False, "frames": EMPTY,
                "blocks": blocks})
        result = {"segments": segments, "device_traces": [self.trace]}
        if not legacy:
            result["allocator_settings"] = {"PYTORCH_CUDA_ALLOC_CONF": "",
                                            "max_split_size": -1,
                                            "garbage_collection_threshold": 0.0,
                                            "expandable_segments": False,
                                            "roundup_power2_divisions": {"1": 0, "2": 0}}
            result["external_annotations"] = annotations
        return result

    def own_accounting(self):
        """The peak of requested bytes live, the event that reached it, the end state."""
        levels = [self.start_bytes] + self.accounting
        peak = max(levels)
        return {"peak_bytes": peak, "peak_event": levels.index(peak) - 1,
                "end_active_bytes": self.live_bytes,
                "reserved_end_bytes": sum(s["total_size"] for s in self.segments),
                "events": len(self.trace)}


class Annotations:
    def __init__(self, allocator):
        self.allocator = allocator
        self.entries = []

    def mark(self, name, stage):
        self.entries.append({"name": name, "stage": stage, "device": 0,
                             "time_us": self.allocator.now()})


def training_steps(steps=3, layers=4, width=256 * KB, annotate=True, record_time=True,
                   oom=True):
    """Steps of a `layers`-layer model: activations kept for backward, gradients and optimizer
    state made in the first step and kept, temporaries freed at once."""
    a = Allocator(record_time)
    notes = Annotations(a)
    parameters = [a.malloc(4 * width + 1000 * i, setup_stack()) for i in range(layers)]
    batch = a.malloc(3 * width, setup_stack())  # the first batch, freed in step 1
    a.start_recording()
    gradients, state = [], []

    def range_of(name, stage):
        if annotate and a.recording:
            notes.mark(name, stage)

    for step in range(steps):
        range_of("ProfilerStep#%d" % step, "START")
        range_of("## forward ##", "START")
        activations = []
        for layer in range(layers):
            range_of("layers.%d" % layer, "START")
            temporary = a.malloc(width // 2 + 512 * layer, forward_stack(layer))
            activations.append(a.malloc(2 * width + 4096 * layer, forward_stack(layer)))
            a.free(temporary)
            range_of("layers.%d" % layer, "END")
        if batch is not None:
            a.free(batch)
            batch = None
        range_of("## forward ##", "END")
        range_of("## backward ##", "START")
        for layer in reversed(range(layers)):
            temporary = a.malloc(3 * width, EMPTY)  # the autograd thread has no Python frames
            if step == 0:
                gradients.append(a.malloc(4 * width + 1000 * layer, EMPTY))
            a.free(temporary)
            a.free(activations.pop())
        range_of("## backward ##", "END")
        range_of("Optimizer.step#Adam.step", "START")
        for layer in range(layers):
            if step == 0:
                state.append(a.malloc(8 * width + 2000 * layer, optimizer_stack()))
            temporary = a.malloc(width, optimizer_stack())
            a.free(temporary)
        range_of("Optimizer.step#Adam.step", "END")
        range_of("ProfilerStep#%d" % step, "END")
    if oom:
        a.oom(64 * LARGE_SEGMENT, 3 * MB)
    return a, notes


def hand_step():
    """Twelve allocator events worked by hand in snapshot_replay_test.cpp (MiB; S1 is a 20 MiB
    segment, S2 a 2 MiB one made at event 7):

      before the history: A 4 at S1+0 (kept), B 1 at S1+4 (freed at event 3)    live 5
      0 alloc C 2.5 at S1+5    forward, in `encoder`                            live 7.5
      1 alloc D 3 at S1+7.5    forward, in `decoder`                            live 10.5 peak
      2,3 free B                                                                live 9.5
      4 alloc E 0.75 at S1+4   backward (B's address again; its block is 1 MiB) live 10.25
      5,6 free C                                                                live 7.75
      7 segment_alloc S2 2                                       reserved 20 -> 22
      8 alloc F 1.5 at S2+0    optimizer                                        live 9.25
      9,10 free D                                                               live 6.25
      11 oom: 64 MiB asked, 3 MiB free on the device
    """
    s1, s2 = SEGMENT_BASE, SEGMENT_BASE + 64 * MB
    setup = setup_stack()
    encoder = forward_stack(1)
    decoder = forward_stack(2)
    optimizer = optimizer_stack()
    entries = []

    def event(action, addr, size, time_us, frames=EMPTY, stream=0):
        key = "device_free" if action == "oom" else "addr"
        entries.append({"action": action, key: addr, "size": size, "stream": stream,
                        "time_us": time_us, "frames": frames})

    event("alloc", s1 + 5 * MB, 5 * MB // 2, 1010, encoder)
    event("alloc", s1 + 15 * MB // 2, 3 * MB, 1020, decoder)
    event("free_requested", s1 + 4 * MB, MB, 1030, setup)
    event("free_completed", s1 + 4 * MB, MB, 1031, setup)
    event("alloc", s1 + 4 * MB, 3 * MB // 4, 1040)
    event("free_requested", s1 + 5 * MB, 5 * MB // 2, 1050, encoder)
    event("free_completed", s1 + 5 * MB, 5 * MB // 2, 1051, encoder)
    event("segment_alloc", s2, 2 * MB, 1060, optimizer)
    event("alloc", s2, 3 * MB // 2, 1061, optimizer)
    event("free_requested", s1 + 15 * MB // 2, 3 * MB, 1070, decoder)
    event("free_completed", s1 + 15 * MB // 2, 3 * MB, 1071, decoder)
    event("oom", 3 * MB, 64 * MB, 1080)

    def block(address, size, requested, state, frames):
        return {"address": address, "size": size, "requested_size": requested, "state": state,
                "frames": frames}

    def segment(address, total, blocks):
        active = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
        return {"device": 0, "address": address, "total_size": total, "allocated_size": active,
                "active_size": active,
                "requested_size": sum(b["requested_size"] for b in blocks), "stream": 0,
                "segment_type": "large", "segment_pool_id": (0, 0), "is_expandable": False,
                "frames": EMPTY, "blocks": blocks}

    segments = [
        segment(s1, 20 * MB, [block(s1, 4 * MB, 4 * MB, "active_allocated", setup),
                              block(s1 + 4 * MB, MB, 3 * MB // 4, "active_allocated", EMPTY),
                              block(s1 + 5 * MB, 15 * MB, 0, "inactive", EMPTY)]),
        segment(s2, 2 * MB, [block(s2, 3 * MB // 2, 3 * MB // 2, "active_allocated", optimizer),
                             block(s2 + 3 * MB // 2, MB // 2, 0, "inactive", EMPTY)]),
    ]

    def annotation(name, stage, time_us):
        return {"name": name, "stage": stage, "device": 0, "time_us": time_us}

    annotations = [annotation("ProfilerStep#0", "START", 1000),
                   annotation("## forward ##", "START", 1001),
                   annotation("encoder", "START", 1005), annotation("encoder", "END", 1015),
                   annotation("decoder", "START", 1016), annotation("decoder", "END", 1025),
                   annotation("## forward ##", "END", 1035),
                   annotation("## backward ##", "START", 1036),
                   annotation("## backward ##", "END", 1055),
                   annotation("Optimizer.step#Adam.step", "START", 1058),
                   annotation("Optimizer.step#Adam.step", "END", 1075),
                   annotation("ProfilerStep#0", "END", 1090)]
    snapshot = {"segments": segments, "device_traces": [entries],
                "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1,
                                       "expandable_segments": False},
                "external_annotations": annotations}
    accounting = {"peak_bytes": 21 * MB // 2, "peak_event": 1, "end_active_bytes": 25 * MB // 4,
                  "reserved_end_bytes": 22 * MB, "events": len(entries)}
    return snapshot, accounting


class RunsCode:
    """What a hostile pickle holds: loading it with pickle.load would run this command."""

    def __reduce__(self):
        return (os.system, ("echo ran > advisor-pickle-ran-code",))


def write_raw(name, data):
    path = os.path.join(OUT, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def write_hostile(snapshot):
    # Protocol 2 names os.system with GLOBAL; protocol 4, inside a snapshot, with STACK_GLOBAL.
    write_raw("hostile/global_os_system.pickle", pickle.dumps(RunsCode(), protocol=2))
    inside = dict(snapshot, device_traces=[[dict(snapshot["device_traces"][0][0],
                                                 frames=[RunsCode()])]])
    write_raw("hostile/stack_global_in_snapshot.pickle", pickle.dumps(inside, protocol=4))
    nested = 0
    for _ in range(100):
        nested = [nested, 0]  # two items: each level opens a MARK inside the one before
    write_raw("hostile/deep_nesting.pickle", pickle.dumps(nested, protocol=4))
    # BINUNICODE8 claiming 2^62 bytes of text, three present.
    write_raw("hostile/huge_length.pickle", b"\x80\x04\x8d" + (1 << 62).to_bytes(8, "little") +
              b"abc")
    whole = pickle.dumps(snapshot, protocol=4)
    write_raw("hostile/truncated.pickle", whole[:len(whole) // 2])
    write_raw("hostile/not_a_snapshot.pickle", pickle.dumps([1, 2, 3], protocol=4))
    wrong = dict(snapshot, device_traces=[[dict(e) for e in snapshot["device_traces"][0]]])
    wrong["device_traces"][0][1]["size"] = "3 MiB"
    write_raw("hostile/wrong_type.pickle", pickle.dumps(wrong, protocol=4))


def write(name, snapshot):
    path = os.path.join(OUT, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        pickle.dump(snapshot, f, protocol=4)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", metavar="OUT", help="write one large snapshot to OUT instead")
    parser.add_argument("--entries", type=int, default=1_000_000,
                        help="with --big: about this many trace entries")
    args = parser.parse_args()
    if args.big:
        layers = 64
        per_step = (len(training_steps(steps=3, layers=layers)[0].trace) -
                    len(training_steps(steps=2, layers=layers)[0].trace))
        steps = max(1, -(-args.entries // per_step))
        allocator, notes = training_steps(steps=steps, layers=layers, oom=False)
        with open(args.big, "wb") as f:
            pickle.dump(allocator.snapshot(notes.entries), f, protocol=4)
        print(json.dumps({"path": args.big, **allocator.own_accounting()}))
        return
    manifest = {}
    snapshot, manifest["hand_step.pickle"] = hand_step()
    write("hand_step.pickle", snapshot)
    allocator, notes = training_steps()
    write("training_steps.pickle", allocator.snapshot(notes.entries))
    manifest["training_steps.pickle"] = allocator.own_accounting()
    allocator, _ = training_steps(annotate=False, record_time=False, oom=False)
    write("legacy_layout.pickle", allocator.snapshot([], legacy=True))
    manifest["legacy_layout.pickle"] = allocator.own_accounting()
    write_hostile(snapshot)
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2, sort_keys=True)
        f.write("\n")

if __name__ == "__main__":
    main()
