#!/usr/bin/env python3
"""A plain single-pass Python implementation of Flipbook's release export — the baseline of
`npm run bench` (README: Testing and benchmarks). Reads labels/per_item.csv with the csv module and
writes per_item.csv sorted, derived.csv, the aggregated JSONs + wide CSVs, table2_metrics.json,
release_manifest.json and provenance/configs.json, with the definitions of docs/metrics.md /
docs/release-format.md (dominance, config order, matched grid). The bench checks that every file it
writes is byte-identical to Flipbook's export of the same input, i.e. that it is the same
export. (It leaves out README.md and the empty annotations/ files: text templates, no work.)

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
    tags = defaultdict(Counter)  # (model, split, config) -> Counter of (source_tag, protocol_note) per field
    notes = defaultdict(Counter)
    for r in rows:
        model, split, sid, cfg = r[col["model"]], r[col["split"]], r[col["sample_id"]], r[col["config"]]
        pc = r[col["pixel_count"]]
        cfg_info[cfg] = (int(r[col["frame_count"]]), int(pc) if pc else None)
        # A config with an @variant is another protocol: the aggregated files are the untagged
        # (main) protocol's grid alone; per_item.csv and configs.json keep every config.
        if "@" in cfg:
            continue
        grids[(model, split)].setdefault(sid, {})[cfg] = (r[col["correct"]] == "1", r[col["predicted_option"]])
        tags[(model, split, cfg)][r[col["source_tag"]]] += 1
        notes[(model, split, cfg)][r[col["protocol_note"]]] += 1

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

    def mode(counter):
        # The most common value; ties go to the code-point first.
        return min(counter.items(), key=lambda kv: (-kv[1], kv[0]))[0] if counter else ""

    derived = []
    table2 = defaultdict(dict)
    manifest_cells = []
    wide_sources = []
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
        # 100 × (count / N), as the release's pandas code computes it.
        pct = lambda k: round(100.0 * (k / n), 4) if n else 0.0
        accs = {c: pct(acc[c]) for c in order}
        best = max(acc[c] for c in order) if order else 0
        obj = {
            "n": n,
            "configs": order,
            "accuracy_by_config": accs,
            "best_fixed": pct(best),
            "oracle": pct(oracle),
            "headroom": round(100.0 * (oracle / n - best / n), 4) if n else 0.0,
            "visual_confusion_rate": pct(confused),
            "overwrite_rate": pct(overwritten),
            "matched_grid_status": "complete" if complete_mg else "incomplete_matched_grid",
            "n_excluded": excluded,
        }
        table2[split][model] = obj
        with open(os.path.join(out, "labels", "aggregated", f"{model}_{split}.json"), "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=2)
        grid_cells = []
        for c in order:
            total = sum(1 for cells in items.values() if c in cells)
            right = sum(1 for cells in items.values() if c in cells and cells[c][0])
            key = (model, split, c)
            grid_cells.append({"model": model, "split": split, "config": c, "total": total, "correct": right,
                               "source_tag": mode(tags[key]), "protocol_note": mode(notes[key])})
        # One config-less tag on every cell and no note: the grid is a wide source (docs/release-format.md).
        all_tags = {t or "" for c in order for t in tags[(model, split, c)]}
        all_notes = {t or "" for c in order for t in notes[(model, split, c)]}
        sole = next(iter(all_tags)) if len(all_tags) == 1 else ""
        if sole and all_notes == {""} and not any(sole.endswith(":" + c) for c in order):
            wide_sources.append({"source_tag": sole, "cells": {g["config"]: {"total": g["total"], "correct": g["correct"]} for g in grid_cells}})
        else:
            manifest_cells.extend(grid_cells)
        wide_cols = sorted(cfgs)
        wide_path = f"labels/aggregated/{model}_{split}_predictions_wide.csv"
        with open(os.path.join(out, *wide_path.split("/")), "w", newline="", encoding="utf-8") as f:
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
        # The release lists its splits in this order; others follow in code-point order.
        release_order = ["V1_medium", "V1_short", "V2_medium", "MLVU"]
        split_order = sorted(table2, key=lambda sp: (release_order.index(sp) if sp in release_order else len(release_order), sp))
        json.dump({sp: table2[sp] for sp in split_order}, f, indent=2)
    with open(os.path.join(out, "labels", "aggregated", "release_manifest.json"), "w", encoding="utf-8") as f:
        json.dump({"cells": manifest_cells, "wide_sources": wide_sources}, f, indent=2)
    os.makedirs(os.path.join(out, "provenance"), exist_ok=True)
    configs = {}
    for c in sorted(cfg_info):
        frames, pixels = cfg_info[c]
        configs[c] = {"frames": frames, "pixel_count": pixels, "width": None, "height": None,
                      "sampling": {"policy": None, "seed": None, "fps": None},
                      "pipeline": None, "toolkit": None, "model_args": None, "notes": None}
    with open(os.path.join(out, "provenance", "configs.json"), "w", encoding="utf-8") as f:
        json.dump(configs, f, indent=2)


if __name__ == "__main__":
    main()
    # CPU seconds of this process (interpreter start included), for the bench's CPU-time ratio.
    sys.stderr.write("cpu_s=%.4f\n" % time.process_time())
