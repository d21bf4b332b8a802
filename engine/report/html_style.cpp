#include "engine/report/html_style.h"

namespace advisor {

// System fonts only: the page must render offline, identically on every machine.
const char kReportCss[] = R"css(
:root {
  --fg: #1f2328; --muted: #5b6571; --faint: #8c959f; --border: #d8dee4; --panel: #f6f8fa;
  --accent: #2f6fde; --accent-soft: #e8f0fe;
  --forward: #4e79a7; --backward: #f28e2b; --optimizer: #59a14f; --rest: #cfd6dd; --data: #b07aa1;
  --evaluation: #edc948; --loss: #76b7b2;
  --neutral: #a7b0ba; --verified: #2da44e; --rejected: #cf222e; --nochange: #bf8700;
  --high: #cf222e; --medium: #b35900; --low: #5b6571;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace;
}
* { box-sizing: border-box; }
body {
  margin: 0; color: var(--fg); background: #fff;
  font: 14px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "Liberation Sans", Arial, sans-serif;
}
main { max-width: 1040px; margin: 0 auto; padding: 28px 32px 48px; }
header { border-bottom: 1px solid var(--border); padding-bottom: 16px; margin-bottom: 20px; }
.eyebrow { color: var(--muted); font-size: 12px; letter-spacing: .06em; text-transform: uppercase; }
h1 { font-size: 24px; margin: 4px 0 6px; font-weight: 600; overflow-wrap: break-word; }
h1 code { font-size: 22px; background: none; padding: 0; }
.meta { color: var(--muted); }
h2 { font-size: 18px; font-weight: 600; margin: 36px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--border); }
h3 { font-size: 15px; font-weight: 600; margin: 22px 0 8px; }
p { margin: 8px 0; }
code { font-family: var(--mono); font-size: 12.5px; background: var(--panel); padding: 1px 5px; border-radius: 4px; overflow-wrap: break-word; }
.tiles { display: grid; grid-template-columns: repeat(auto-fit, minmax(180px, 1fr)); gap: 12px; margin: 16px 0; }
.tile { border: 1px solid var(--border); border-radius: 8px; padding: 12px 14px; background: #fff; }
.tile .name { color: var(--muted); font-size: 12px; }
.tile .big { font-size: 22px; font-weight: 600; margin-top: 2px; font-variant-numeric: tabular-nums; }
.tile .big code { font-size: 15px; background: none; padding: 0; }
.tile .sub { color: var(--muted); font-size: 12px; }
.summary { background: var(--accent-soft); border-left: 4px solid var(--accent); border-radius: 4px; padding: 12px 16px; }
.table-wrap { overflow-x: auto; margin: 10px 0 6px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { border-bottom: 1px solid var(--border); padding: 5px 10px; text-align: left; vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: 12px; background: var(--panel); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.highlighted td { background: var(--accent-soft); font-weight: 600; }
.not-measured { color: var(--faint); font-style: italic; font-weight: normal; white-space: nowrap; }
.level { border: 1px solid var(--border); border-radius: 8px; padding: 4px 16px 12px; margin: 14px 0; }
.level h3 { margin-top: 12px; }
.reason { color: var(--fg); }
.reason .label, .note { color: var(--muted); }
.badge { display: inline-block; font-size: 11px; font-weight: 600; letter-spacing: .03em; text-transform: uppercase; padding: 1px 7px; border-radius: 10px; border: 1px solid currentColor; vertical-align: 1px; }
.badge.high { color: var(--high); } .badge.medium { color: var(--medium); } .badge.low { color: var(--low); }
.badge.info { color: var(--muted); }
.badge.verified { color: var(--verified); } .badge.rejected, .badge.failed { color: var(--rejected); }
.badge.no-change { color: var(--nochange); }
details { margin: 6px 0; } summary { cursor: pointer; color: var(--muted); font-size: 13px; }
.findings { list-style: none; padding: 0; margin: 0; }
.finding { border: 1px solid var(--border); border-radius: 8px; padding: 10px 14px; margin: 10px 0; }
.finding .head { display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; }
.finding .facts { color: var(--muted); font-size: 13px; margin-top: 4px; }
.finding .facts span + span::before { content: "\00b7"; margin: 0 8px; color: var(--faint); }
pre.source { font-family: var(--mono); font-size: 12.5px; background: var(--panel); border: 1px solid var(--border); border-radius: 6px; padding: 10px 12px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
.change { border-left: 4px solid var(--accent); background: #fbfcfe; border-radius: 4px; padding: 8px 12px; margin-top: 8px; font-size: 13px; }
.change .change-head { font-weight: 600; }
.change .label { color: var(--muted); font-size: 12px; margin-top: 6px; }
.change pre.source { margin: 2px 0; }
pre.source.before { background: #fff5f5; } pre.source.after { background: #f3fbf4; }
pre.source .where { color: var(--muted); display: block; margin-bottom: 4px; }
ul.quality { padding-left: 20px; }
footer { margin-top: 40px; color: var(--faint); font-size: 12px; border-top: 1px solid var(--border); padding-top: 10px; }
svg.chart { display: block; max-width: 100%; height: auto; margin: 8px 0; }
svg.chart text { font: 12px system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", Arial, sans-serif; fill: var(--fg); }
svg.chart text.label { font-family: var(--mono); }
svg.chart text.value { fill: var(--muted); font-variant-numeric: tabular-nums; }
svg.chart text.tick { fill: var(--faint); font-size: 11px; }
svg.chart .highlighted text.label, svg.chart .highlighted text.value { font-weight: 700; fill: var(--fg); }
svg.chart line.grid { stroke: #eaeef2; stroke-width: 1; }
svg.chart .row-band { fill: var(--accent-soft); }
svg.chart .whisker { stroke: var(--fg); stroke-width: 1.5; fill: none; }
.fill-forward { fill: var(--forward); } .fill-backward { fill: var(--backward); }
.fill-optimizer { fill: var(--optimizer); } .fill-rest { fill: var(--rest); }
.fill-data { fill: var(--data); } .fill-evaluation { fill: var(--evaluation); }
.fill-loss { fill: var(--loss); }
.fill-candidate { fill: var(--neutral); } .fill-chosen { fill: var(--accent); }
.fill-baseline { fill: var(--neutral); } .fill-verified { fill: var(--verified); }
.fill-rejected, .fill-failed { fill: var(--rejected); } .fill-no-change { fill: var(--nochange); }
.fill-info { fill: var(--neutral); }
.fill-gap { fill: none; } /* a waterfall bar's offset (diff.html) */
.fill-allocated { fill: var(--forward); fill-opacity: .35; } .fill-reserved { fill: var(--muted); }
.fill-module { fill: var(--neutral); } .fill-holder { fill: var(--high); }
.layer-parameters { fill: #8a939c; } .layer-optimizer_state { fill: #9c755f; }
.layer-before_window { fill: #b6a48e; }
.layer-activations { fill: #edc948; } .layer-gradients { fill: #ff9da7; }
.layer-temporaries { fill: #dfe3e8; } .layer-other { fill: #bab0ac; }
svg.chart .allocated { fill: var(--forward); fill-opacity: .35; stroke: var(--forward); }
svg.chart .reserved { fill: none; stroke: var(--muted); stroke-dasharray: 5 3; }
svg.chart .allocated, svg.chart .reserved { stroke-width: 1.5; }
svg.chart line.peak { stroke: var(--high); stroke-width: 1.5; stroke-dasharray: 3 3; }
svg.chart circle.peak { fill: var(--high); }
svg.chart text.peak, svg.chart text.oom { fill: var(--high); font-weight: 600; }
svg.chart line.oom { stroke: var(--rejected); stroke-width: 2; }
svg.chart text.lane { fill: var(--muted); font-size: 11px; }
svg.chart text.span { fill: #fff; font-size: 10px; font-family: var(--mono); }
)css";

}  // namespace advisor
