"""RSS and p99 over time from a soak result, faults marked; writes a PNG."""
import json
import sys

import matplotlib.pyplot as plt

source, target = sys.argv[1], sys.argv[2]
with open(source, encoding="utf-8") as handle:
    result = json.load(handle)
windows = result["windows"]
minutes = [w["t_s"] / 60 for w in windows]
figure, (rss_axis, latency_axis) = plt.subplots(2, 1, sharex=True, figsize=(11, 6.5))
rss_axis.plot(minutes, [w["rss_mb"] for w in windows], color="tab:blue")
rss_axis.set_ylabel("service RSS (MB)")
rss_axis.set_ylim(bottom=0)
latency_axis.plot(minutes, [w["p99_ms"] for w in windows], color="tab:red", label="p99")
latency_axis.plot(minutes, [w["p50_ms"] for w in windows], color="tab:gray", label="p50")
latency_axis.set_ylabel("latency per 5 s window (ms)")
latency_axis.set_yscale("log")
latency_axis.set_xlabel("minutes")
latency_axis.legend(loc="upper left")
for window in windows:
    if window["event"]:
        for axis in (rss_axis, latency_axis):
            axis.axvline(window["t_s"] / 60, color="black", linestyle=":", linewidth=1)
        rss_axis.annotate(window["event"], (window["t_s"] / 60, 0), rotation=90, fontsize=8, va="bottom", ha="right")
trades = result["trades"]
figure.suptitle(
    f"soak: {result['minutes']} min at {result['requests_per_second']} req/s on real engines; "
    f"trades upstream {trades['upstream']}, lost {trades['lost']}, doubled {trades['doubled_in_candles']}; "
    f"alive at end: {result['service_alive_at_end']}",
    fontsize=9,
)
figure.tight_layout()
figure.savefig(target, dpi=110)
print(f"wrote {target}")
