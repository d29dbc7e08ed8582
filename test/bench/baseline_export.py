#!/usr/bin/env python3
"""A plain single-pass Python implementation of Flipbook's release export — the baseline of
`npm run bench` (issue 2, section 7b). Reads labels/per_item.csv with the csv module and
writes per_item.csv sorted, derived.csv and the aggregated JSONs + wide CSVs, with the
definitions of metrics.md / release-format.md (dominance, config order, matched grid).

Usage: baseline_export.py <per_item.csv> <out_dir> [matched,grid,configs]
"""
import csv
import json
import os
import re
import sys
import time
from collections import Counter, defaultdict

KEY = re.compile(r"^(\d+)f(?:_(.+))?$")


def main():
    src, out = sys.argv[1], sys.argv[2]
    matched = sys.argv[3].split(",") if len(sys.argv) > 3 else ["textonly", "16f_151k", "32f_151k", "64f_151k"]
    with open(src, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = list(reader)
    col = {h: i for i, h in enumerate(header)}
    cfg_info = {}
    grids = defaultdict(dict)  # (model, split) -> {sample_id: {config: (correct, pred)}}
    for r in rows:
        model, split, sid, cfg = r[col["model"]], r[col["split"]], r[col["sample_id"]], r[col["config"]]
        pc = r[col["pixel_count"]]
        cfg_info[cfg] = (int(r[col["frame_count"]]), int(pc) if pc else None)
        grids[(model, split)].setdefault(sid, {})[cfg] = (r[col["correct"]] == "1", r[col["predicted_option"]])

    rows.sort(key=lambda r: (r[col["model"]], r[col["split"]], r[col["sample_id"]], r[col["config"]]))
    os.makedirs(os.path.join(out, "labels", "aggregated"), exist_ok=True)
    with open(os.path.join(out, "labels", "per_item.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)

    def lower(a, b):
        fa, pa = cfg_info[a]
        fb, pb = cfg_info[b]
        if fa == 0:
            return fb > 0
        if fb == 0:
            return False
        if (pa is None) != (pb is None):
            return False
        pa = pa or 0
        pb = pb or 0
        return fa <= fb and pa <= pb and (fa < fb or pa < pb)

    derived = []
    table2 = defaultdict(dict)
    for (model, split), items in sorted(grids.items()):
        cfgs = set()
        for cells in items.values():
            cfgs.update(cells)
        ppfs = Counter(cfg_info[c][1] for c in cfgs if cfg_info[c][0] > 0)
        common = sorted(ppfs.items(), key=lambda kv: (-kv[1], kv[0] or 0))[0][0] if ppfs else None
        text = [c for c in cfgs if cfg_info[c][0] == 0]
        ladder = sorted((c for c in cfgs if cfg_info[c][0] > 0 and cfg_info[c][1] == common), key=lambda c: cfg_info[c][0])
        rest = sorted(c for c in cfgs if c not in text and c not in ladder)
        order = text + ladder + rest
        pairs = [(a, b) for a in order for b in order if lower(a, b)]
        mg = [c for c in matched if c in cfgs]
        complete_mg = len(mg) == len(matched)
        n = 0
        excluded = 0
        acc = Counter()
        oracle = confused = overwritten = 0
        for sid in sorted(items):
            cells = items[sid]
            if len(cells) < len(order):
                excluded += 1
                continue
            n += 1
            y = [cells[c][0] for c in order]
            for c, v in zip(order, y):
                acc[c] += v
            oracle += any(y)
            conf = any(cells[a][0] and not cells[b][0] for a, b in pairs)
            ow = bool(text) and cells[text[0]][0] and any(not cells[c][0] for c in order if cfg_info[c][0] > 0)
            confused += conf
            overwritten += ow
            switches = sum(1 for i in range(1, len(y)) if y[i] != y[i - 1])
            if all(y):
                cls = "always_correct"
            elif not any(y):
                cls = "always_wrong"
            elif switches == 1:
                cls = "monotonic_increasing" if y[-1] else "monotonic_decreasing"
            else:
                cls = "oscillating"
            best = next((c for c in order if cells[c][0]), order[0])
            mgo = [c for c in order if c in matched]
            mbest = next((c for c in mgo if cells[c][0]), mgo[0]) if complete_mg else ""
            derived.append((sid, model, split, int(conf), int(ow), cls, best, mbest))
        pct = lambda k: round(100.0 * k / n, 4) if n else 0.0
        accs = {c: pct(acc[c]) for c in order}
        best_fixed = max(accs.values()) if accs else 0.0
        obj = {
            "n": n,
            "configs": order,
            "accuracy_by_config": accs,
            "best_fixed": best_fixed,
            "oracle": pct(oracle),
            "headroom": round(pct(oracle) - best_fixed, 4),
            "visual_confusion_rate": pct(confused),
            "overwrite_rate": pct(overwritten),
            "matched_grid_status": "complete" if complete_mg else "incomplete_matched_grid",
            "n_excluded": excluded,
        }
        table2[split][model] = obj
        with open(os.path.join(out, "labels", "aggregated", f"{model}_{split}.json"), "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=2)
        wide_cols = sorted(cfgs)
        with open(os.path.join(out, "labels", "aggregated", f"{model}_{split}_predictions_wide.csv"), "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["sample_id"] + wide_cols)
            for sid in sorted(items):
                w.writerow([sid] + [items[sid].get(c, (False, ""))[1] for c in wide_cols])
    derived.sort(key=lambda r: (r[1], r[2], r[0]))
    with open(os.path.join(out, "labels", "derived.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["sample_id", "model", "split", "is_visually_confused", "is_text_overwritten", "trajectory_class", "best_config", "matched_grid_best_config"])
        w.writerows(derived)
    with open(os.path.join(out, "labels", "aggregated", "table2_metrics.json"), "w", encoding="utf-8") as f:
        json.dump(table2, f, indent=2)


if __name__ == "__main__":
    main()
    # CPU seconds of this process (interpreter start included), for the bench's CPU-time ratio.
    sys.stderr.write("cpu_s=%.4f\n" % time.process_time())
