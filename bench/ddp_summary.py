#!/usr/bin/env python3
"""The GPU check's DDP stage summary (scripts/gpu-check.sh ddp): per report folder given, the
step, each rank's compute and communication, the training state per GPU, the findings and the
fixes measured, a few lines each.

    ddp_summary.py REPORT_DIR [REPORT_DIR ...]
"""

import json
import sys


def summarise(folder):
    try:
        with open(folder + "/report.json") as report_file:
            report = json.load(report_file)
    except (OSError, ValueError) as error:
        print("%s: no report (%s)" % (folder, error))
        return
    distributed = report.get("distributed") or {}
    state = report.get("training_state") or {}
    straggler = distributed.get("straggler") or {}
    print("%s: step %.1f ms, torch %s, %s, %d collectives matched, straggler %s" % (
        folder.rstrip("/").split("/")[-1], report["step"]["median_ms"],
        report["run"]["torch_version"], state.get("wrapper") or "no wrapper",
        distributed.get("collectives_matched", 0), straggler.get("rank", "none")))
    for rank in distributed.get("ranks", []):
        print("  rank %d: step %.1f ms, compute %.1f, comm %.1f, exposed comm %.1f, late %.2f ms"
              % (rank["rank"], rank["step_ms"], rank["compute_ms"], rank["comm_ms"],
                 rank["exposed_comm_ms"], rank["late_ms"]))
    memory = report.get("memory") or {}
    print("  per GPU: parameters %.0f, gradients %.0f, optimizer state %.0f MiB (%s, %s of %s "
          "micro-steps synced); peak allocated %.0f, reserved %.0f MiB" % (
              state.get("parameter_mb", 0), state.get("gradient_mb", 0),
              state.get("optimizer_state_mb", 0), state.get("sharding_strategy") or "unsharded",
              state.get("synced_micro_steps"), state.get("micro_steps"),
              memory.get("peak_allocated_mb", 0), memory.get("peak_reserved_mb", 0)))
    for finding in report["findings"]:
        print("  finding [%s] %s: %s | %s" % (finding["severity"], finding["rule"],
                                             finding["message"][:400], finding["evidence"][:300]))
    for fix in report["fixes"]:
        print("  fix %s: %s %s" % (fix["recipe"], fix["status"], (fix.get("detail") or "")[:200]))


def main():
    for folder in sys.argv[1:]:
        summarise(folder)


if __name__ == "__main__":
    main()
