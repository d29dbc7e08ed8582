import { resolve } from 'node:path';
import { frameCacheDirForProject } from '../../frames/frame-cache';
import { createFrameService } from '../../frames/frame-service';
import { selectItemFrames } from '../../frames/item-frames';
import { extractItemFrames } from '../../frames/item-strips';
import { createProjectMetadataCache } from '../../media/project-metadata-cache';
import { videoPathOf } from '../../media/item-video';
import { openProject } from '../../store/index';
import { integerOption, parseCli, requireOption, table, toJson } from '../args';
import { UsageError, type CliCommand } from '../command';

const HELP = `Usage: flipbook frames --project P --item SPLIT/SAMPLE_ID --model M [--width W] [--json]

Extracts the frames every config of the item's grid saw (recorded frame_indices win, else the
config's sampler from provenance, a project override or the model's default), decoding their
union once into the frame cache beside the project (P.frames/), and prints per config its
policy, indices and cached files.

Options:
  --project P        the .flipbook project file (opened read-only; the video is found under
                     the project's media root)
  --item S/ID        split and sample id, e.g. videomme/001-1
  --model M          model whose configs and recorded indices are used
  --width W          thumbnail width (default 320; 0 = full size)
  --json             print JSON

Exit codes: 0 ok, 1 failure (unknown item, no media root, missing or unreadable video), 2 bad usage.`;

export const framesCommand: CliCommand = {
  help: HELP,
  async run(argv) {
    const { values } = parseCli(argv, {
      project: { type: 'string' },
      item: { type: 'string' },
      model: { type: 'string' },
      width: { type: 'string' },
      json: { type: 'boolean' },
    });
    const projectPath = resolve(requireOption('project', values.project));
    const itemArg = requireOption('item', values.item);
    const slash = itemArg.indexOf('/');
    if (slash <= 0 || slash === itemArg.length - 1) throw new UsageError(`--item must be SPLIT/SAMPLE_ID, got '${itemArg}'`);
    const split = itemArg.slice(0, slash);
    const sampleId = itemArg.slice(slash + 1);
    const model = requireOption('model', values.model);
    const width = integerOption('width', values.width) ?? 320;
    if (width < 0 || width === 1) throw new UsageError('--width must be 0 (full size) or ≥ 2');

    const project = openProject(projectPath, { readOnly: true });
    const svc = createFrameService({ cacheDir: frameCacheDirForProject(projectPath), metadataCache: createProjectMetadataCache(project) });
    try {
      const item = project.getItem(split, sampleId);
      if (!item) throw new Error(`${projectPath}: no item ${split}/${sampleId}`);
      const configs = project.gridConfigs(model, split);
      if (!configs.length) throw new Error(`${projectPath}: model ${model} has no configs on split ${split}`);
      const t0 = performance.now();
      // The same selection as the item view's strips (item-frames.ts): the video checked against
      // the media root, recorded frame_indices, the project's sampler overrides.
      const sel = await selectItemFrames(project, (file) => svc.probe(file), { model, split, sampleId }, configs);
      if (sel === null) throw new Error(`${projectPath}: ${split}/${sampleId}: ${videoPathOf(project, split, sampleId).error ?? 'no video'}`);
      const strips = extractItemFrames(svc, sel, { spec: { width: width === 0 ? null : width, format: 'jpeg' }, approximate: false });
      const res = await strips.frames;
      if (res.failures.length) throw new Error(res.failures[0]?.message ?? 'extraction failed');
      const out = {
        item: `${split}/${sampleId}`,
        model,
        video: sel.meta.path,
        frameCount: sel.meta.frameCount,
        unionFrames: strips.union.length,
        decoded: res.decoded,
        cacheHits: res.cacheHits,
        seconds: Math.round((performance.now() - t0) / 10) / 100,
        configs: sel.configs.map((c) => ({
          config: c.configKey,
          policy: c.policy,
          source: c.source,
          domain: c.domain,
          cacheFps: c.cacheFps,
          indices: c.sampled,
          frames: c.frames,
          timestampsS: c.timestampsS.map((t) => Math.round(t * 1000) / 1000),
          files: c.frames.map((f) => res.files.get(f) ?? null),
        })),
      };
      if (values.json) {
        console.log(toJson(out));
        return 0;
      }
      console.log(
        `${out.item} · ${model} · ${out.video} (${out.frameCount} frames): ${out.unionFrames} distinct frames, ${out.decoded} decoded, ${out.cacheHits} cached, ${out.seconds} s`,
      );
      console.log(
        table(
          ['config', 'policy', 'source', 'n', 'indices'],
          out.configs.map((c) => [c.config, c.policy, c.source, c.indices.length, c.indices.length > 12 ? `${c.indices.slice(0, 12).join(',')},…` : c.indices.join(',')]),
        ),
      );
      for (const c of out.configs) for (let i = 0; i < c.files.length; i++) console.log(`${c.config}\t${c.indices[i]}\t${c.frames[i]}\t${c.files[i]}`);
      return 0;
    } finally {
      svc.close();
      project.close();
    }
  },
};
