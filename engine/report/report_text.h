// Sentences and orderings that the Markdown and HTML writers share. Each writer passes its own
// markup for identifiers and prose, so the wording lives here once and escaping stays with the
// writer that knows its format.
#pragma once

#include <string>
#include <vector>

#include "engine/model/run_report.h"

namespace advisor {

struct InlineMarkup {
  std::string (*code)(const std::string& identifier);  // module path, op name, recipe id
  std::string (*text)(const std::string& prose);       // untrusted free text
};

// One paragraph for a person: step time, the hot spot (path -> op, phase, ms/step, share), how
// bisection got there, findings and the best measured fix; for a report without a step (an
// allocator snapshot), MemorySentence and the findings; for a run that ran out of memory,
// OutOfMemorySentence and the findings (its fixes).
std::string SummaryParagraph(const RunReport& report, const InlineMarkup& markup);

// What a snapshot's memory peak was: how high, in what phase, with how much reserved, what
// most of it was allocated in, the instance holding the most, the failed allocations. Needs
// report.memory->peak.
std::string MemorySentence(const RunReport& report, const InlineMarkup& markup);

// Whether the hot spot's module holds clearly more of the step than its one op, so that the
// report gives the module's share beside the op's.
bool ModuleOutweighsItsOp(const Hotspot& hotspot);

// " (made by `aten::gather`, itself 15.2 ms per step)" for a backward node whose forward op the
// window timed (a call whose halves cost alike is named by its node: docs/bisect.md); "" for a
// forward op.
std::string MadeBy(const Hotspot& hotspot, const InlineMarkup& markup);

// Where an out-of-memory error struck, in words: "in the forward pass of `blocks.2` at
// `train.py:41` (`...`)", then its holder where the graphs kept something for backward
// ("; `blocks.0` kept the most ..."). Plain text with kPlainText.
std::string OutOfMemoryWhere(const OutOfMemoryFailure& failure, const InlineMarkup& markup);

// The instance holding the most of what the graphs kept for backward at the failure
// (failure.live), with its MB, and the first instance holding as much: "`blocks.0` kept the most
// for backward (12 of the 40 MB the graphs kept, as much as `blocks.1` and 2 more)"; "" where
// the graphs kept nothing any instance owns.
std::string OutOfMemoryHolder(const OutOfMemoryFailure& failure, const InlineMarkup& markup);

// The run's failure for a person: out of memory, where, the request and what the allocator held
// (report.out_of_memory). Leads the summary of a report of a run that ran out of memory.
std::string OutOfMemorySentence(const OutOfMemoryFailure& failure, const InlineMarkup& markup);

// What the candidate-only runs after it found (engine/autotest/fit_runs.h): "activation-
// checkpointing fits (peak 900 MB, 12.3 ms a step; no speedup: nothing without it fits)", or that
// none of the N fits; "" when none ran. The summary's and advisor's last line's.
std::string OutOfMemoryFixesSentence(const std::vector<FixResult>& fixes,
                                     const InlineMarkup& markup);

// Identifiers and prose as they are: a line on the terminal (made printable by its writer).
std::string AsIs(const std::string& text);
inline constexpr InlineMarkup kPlainText{AsIs, AsIs};

// Why a low-confidence hot spot is in doubt (the data_quality lines that say so) and the
// candidates it could not rule out, in one or two sentences of plain text.
std::string LowConfidenceSentence(const RunReport& report);

// Why an op that took longer than the hot spot's own op ranks below it: most of its time was
// first touches of fresh memory pages (WindowAttribution::Work). Empty where no such op exists.
std::string FreshPagesSentence(const Hotspot& hotspot, const InlineMarkup& markup);

// Where the hot spot's op ran at two lines of the user's code or more (Hotspot::op_lines): each
// line with its part of the op's time, the costliest first. Empty for one line or none.
std::string OpLinesSentence(const Hotspot& hotspot, const InlineMarkup& markup);

// "Level 2: children of blocks" / "Level 1: children of the model".
std::string LevelTitle(const BisectLevel& level, const InlineMarkup& markup);

// How far the marker-free attribution (sequence numbers) agrees with the markers.
std::string CrossCheckSentence(const CrossCheck& check);

// What the ranks' collectives say: how many matched, their skew, and the straggler with the module
// and op that made it late, or that no rank was consistently late.
std::string DistributedSentence(const DistributedSummary& distributed, const InlineMarkup& markup);

// Why the hot spot has no source line: a model's archive holds none for its op; a script's
// labelled steps saw no line of the user's code run it (an op the autograd engine runs on its own,
// such as the aten::add that sums two gradients of one tensor).
// inside a model compiled whole, levels taken from inductor's kernel provenance read no line (a
// source window would run the instance eagerly under regional compilation).
std::string NoSourceSentence(const RunReport& report);

// The bisection's last level was taken from the compiled kernels' provenance: its hot spot is a
// kernel (or extern call), its top "ops" the instance's kernels, with no host time or calls.
bool HotspotByProvenance(const RunReport& report);

// A script's loss: its phase, its ops' backward and their share of the step, introducing its
// lines where they were read.
std::string LossSentence(const LossCost& loss);

// How the input stage was measured: one batch's preparation (median, batches measured, the
// output it makes) and how busy the workers were on how many cores.
std::string InputStageSentence(const DataWait& data, const InlineMarkup& markup);

// Why `section` (a report.json key) is not in the report; nullptr when it is.
const AbsentSection* AbsentSectionOf(const RunReport& report, const std::string& section);

// The autotester's result for a recipe, nullptr when it did not run that recipe.
const FixResult* FixForRecipe(const RunReport& report, const std::string& recipe);

// "1.32× (95% interval 1.25×–1.40×, 3 rounds)", "1.05× (1 round)"; "" when not measured.
std::string SpeedupText(const FixResult& fix);

// "verified: 1.32× faster (95% interval 1.25×–1.40×, 3 rounds)", "failed", "no-change: 1.01× (…)".
std::string FixOutcome(const FixResult& fix);

}  // namespace advisor
