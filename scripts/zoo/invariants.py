"""What every report must hold, whatever the case (issue #12, "numbers that add up"): the zoo's
runner checks each report with violations() beside its answer, so a report whose numbers
contradict each other fails the zoo like a wrong hot spot."""

import re

# A file inside torch's own package: a hot spot's or a finding's source must be the model
# author's line.
TORCH_PACKAGE = re.compile(r"[/\\](site|dist)-packages[/\\]torch[/\\]")
SLACK = 1e-6


def _close(a, b):
    return abs(a - b) <= SLACK * max(1.0, abs(a), abs(b))


def violations(report):
    """The invariants ``report`` (a parsed report.json) breaks, one line each; [] when none."""
    found = []
    shares = (report.get("step") or {}).get("shares") or {}
    if shares.get("forward") is not None:
        total = sum(value for value in shares.values() if value is not None)
        if abs(total - 1.0) > 0.01:
            found.append("step phase shares add up to %.1f%%, not 100%%" % (100 * total))
    # A trace's report (advisor analyze) has no bisection.
    levels = (report.get("bisection") or {}).get("levels", [])
    for level in levels:
        for candidate in level["candidates"]:
            if candidate["share"] > 1.0 + SLACK:
                found.append("%s holds %.1f%% of its parent %r" % (
                    candidate["path"], 100 * candidate["share"], level["parent"]))
    measured = {m["path"]: m for m in report.get("modules", []) if m.get("measured")}
    for level in levels:
        for candidate in level["candidates"]:
            module = measured.get(candidate["path"])
            if candidate["instances"] != 1 or module is None:
                continue
            for phase in ("forward_ms", "backward_ms"):
                if not _close(candidate[phase], module[phase]):
                    found.append("%s has two %s: %.4g in level %d's table, %.4g in the modules "
                                 "table" % (candidate["path"], phase.replace("_ms", " times"),
                                            candidate[phase], level["depth"], module[phase]))
    sourced = [("the hot spot", report.get("hotspot") or {})]
    sourced += [("finding %s" % finding.get("rule"), finding)
                for finding in report.get("findings") or []]
    for what, item in sourced:
        source = item.get("source") or {}
        if source.get("file") and TORCH_PACKAGE.search(source["file"]):
            found.append("%s's source is torch's own: %s:%s" % (what, source["file"],
                                                               source.get("line")))
    return found
