-- For the GPU check's DDP stage (scripts/gpu-check.sh ddp): names both DDP bucket sizes on every
-- run of a launcher's ranks, so that the benchmark measures them whatever share of the step
-- exposed-communication finds exposed (on two H100s over NVLink, a ViT-B/16's all-reduce may
-- hide behind the backward entirely). A benchmark's rule: never loaded by a user's run.
return {
  id = "bench-try-ddp-buckets",
  title = "Measure the DDP bucket sizes (benchmark rule)",
  check = function(facts)
    if facts.run.mode ~= "script" or facts.ranks == nil then return {} end
    local findings = {}
    for _, recipe in ipairs({"ddp-bucket-10mb", "ddp-bucket-100mb"}) do
      findings[#findings + 1] = {
        severity = "low",
        message = "Benchmark rule: measure DistributedDataParallel's bucket sizes.",
        evidence = "always, on a launcher's ranks",
        recipe = recipe,
      }
    end
    return findings
  end,
}
