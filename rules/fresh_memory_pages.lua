-- On a CPU, a buffer's first touch after the kernel handed it over costs a page fault per page
-- (1.3 us each on the 2-core CI VM, measured with each run: facts.run.page_fault_us). glibc's
-- malloc serves large blocks with mmap and gives them back on free (above its adaptive threshold,
-- at most 32 MiB, always), and trims the top of its heap, so a step that frees and reallocates
-- the same large activations faults every page of them in again, step after step: ragged_shapes'
-- ReluBackward0 took 4 ms of which 3 ms were page faults. Allocators that keep freed memory for
-- reuse (jemalloc, tcmalloc) remove most of it, as does telling glibc to keep it (recipe
-- keep-freed-memory). Where the allocator keeps freed memory already (facts.run.host_allocator),
-- the faults that remain are memory the step grows into: shapes that grow.

local MIN_SHARE = 0.10   -- of the profiled step
local HIGH_SHARE = 0.25

-- The op that took the most page-fault time, with its module where the hot spot's table has it.
local function worst_op(facts)
  local worst
  for _, op in ipairs(facts.ops or {}) do
    if (op.page_fault_ms or 0) > 0 and (worst == nil or op.page_fault_ms > worst.page_fault_ms) then
      worst = op
    end
  end
  if worst == nil then return nil, "" end
  if facts.hotspot ~= nil then
    for _, op in ipairs(facts.hotspot.ops or {}) do
      if op.name == worst.name and op.phase == worst.phase and (op.page_fault_ms or 0) > 0 then
        return worst, facts.hotspot.path
      end
    end
  end
  return worst, ""
end

return {
  id = "fresh-memory-pages",
  title = "Every step faults fresh memory pages in",
  check = function(facts)
    local step = facts.step
    if step.page_fault_ms == nil or step.page_fault_share == nil then return {} end
    if step.page_fault_share < MIN_SHARE then return {} end
    local op, path = worst_op(facts)
    local where = ""
    if op ~= nil then
      where = string.format(", most in %s (%s, %s of its %s)", op.name, op.phase,
        advisor.ms(op.page_fault_ms), advisor.ms(op.ms))
      if path ~= "" then where = where .. " in " .. path end
    end
    local keeps = facts.run.host_allocator ~= nil and facts.run.host_allocator.keeps_freed_memory
    local message, recipe
    if keeps then
      message = "The step's ops spend a real share of it taking page faults although the "
        .. "allocator keeps freed memory: the step grows into memory it has not used before. "
        .. "Shapes that grow from step to step (a curriculum, ragged batches) do this; pad or "
        .. "bucket them to a few fixed sizes."
      recipe = ""
    else
      message = "The step's ops spend a real share of it taking page faults on memory the "
        .. "allocator gave back to the kernel: glibc's malloc returns large freed buffers, and "
        .. "the next step touches every page of them anew. Keep freed memory in the process: "
        .. "MALLOC_MMAP_MAX_=0 and MALLOC_TRIM_THRESHOLD_ set high in the training process's "
        .. "environment, or a preloaded jemalloc or tcmalloc (LD_PRELOAD)."
      recipe = "keep-freed-memory"
    end
    return {{
      severity = advisor.severity(step.page_fault_share, HIGH_SHARE, MIN_SHARE),
      path = path,
      op = op ~= nil and op.name or "",
      message = message,
      evidence = string.format("%s a step (%s of the step) went to page faults, at %.2f us "
        .. "each as measured on this host%s", advisor.ms(step.page_fault_ms),
        advisor.pct(step.page_fault_share), facts.run.page_fault_us or 0, where),
      recipe = recipe,
      expected_gain_ms = step.page_fault_ms,
    }}
  end,
}
