-- A DataLoader without persistent workers shuts its worker processes down as each epoch ends and
-- starts new ones for the next: each is forked (or spawned) again, gets its copy of the Dataset,
-- runs its worker_init_fn, and the epoch's first batch waits for all of it. Short epochs pay it
-- often. persistent_workers=True keeps the workers across epochs; an epoch's first batch then
-- waits only for its own preparation.
-- facts.data.loader (docs/facts.md): script mode, the training loop's DataLoader and what an
-- epoch's start cost where one fell inside a window's steps. Where none did (long epochs), the
-- cost is unmeasured and the rule says nothing.

-- Of the step, the restarts amortised over the epoch's steps. Below a twentieth they are within
-- what steps vary by anyway, and workers kept alive hold their memory between epochs for little.
local MIN_SHARE = 0.05
local HIGH_SHARE = 0.30  -- as data-loader-stall's high wait: a third of the step spent waiting

return {
  id = "persistent-workers",
  title = "Every epoch restarts the DataLoader's workers",
  check = function(facts)
    local loader = facts.data and facts.data.loader
    if loader == nil or loader.workers == 0 or loader.persistent
        or loader.epoch_start_ms == nil or loader.epoch_batches == nil
        or loader.epoch_batches <= 0 or loader.batches_per_step <= 0 then
      return {}
    end
    -- With persistent workers the epoch's first batch still waits for its own preparation.
    local first_batch_ms = facts.data.stage and facts.data.stage.batch_ms or 0
    local saved_per_epoch = math.max(loader.epoch_start_ms - first_batch_ms, 0)
    local saved_ms = saved_per_epoch * loader.batches_per_step / loader.epoch_batches
    -- Of the mean step, which the restarts are part of (the median step steps over them).
    local share = advisor.share(saved_ms, facts.step.mean_ms or facts.step.ms)
    if share < MIN_SHARE then return {} end
    local preparation = first_batch_ms > 0
      and string.format(", less %s that the first batch's preparation takes anyway",
                        advisor.ms(first_batch_ms))
      or ""
    return {{
      severity = advisor.severity(share, HIGH_SHARE, MIN_SHARE),
      message = string.format("Each epoch shuts the DataLoader's %d worker processes down and "
        .. "starts new ones (forked or spawned, each with its copy of the Dataset and its "
        .. "worker_init_fn), and the epoch's first batch waits for them: with epochs of %d "
        .. "batches that is paid often. Build the DataLoader with persistent_workers=True to keep "
        .. "its workers across epochs.", loader.workers, loader.epoch_batches),
      evidence = string.format("an epoch's start takes %s beyond a steady batch's wait (median of "
        .. "%d seen in the windows' steps)%s; over an epoch of %d batches at %.1f per step, %s per "
        .. "step (%s of the step), with %d workers and persistent_workers off",
        advisor.ms(loader.epoch_start_ms), loader.epochs_seen, preparation, loader.epoch_batches,
        loader.batches_per_step, advisor.ms(saved_ms), advisor.pct(share), loader.workers),
      recipe = "persistent-workers",
      expected_gain_ms = saved_ms,
    }}
  end,
}
