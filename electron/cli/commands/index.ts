import type { CliCommandEntry } from '../command';

// One entry per command (keep alphabetical). Each command's module is imported only when that
// command runs, so `flipbook --help` and every other command pay for none of the rest
// (docs/architecture.md, "CLI start-up").
export const commands: CliCommandEntry[] = [
  { name: 'agreement', summary: "Agreement between annotators (Cohen's and Fleiss' κ) per model and split", load: async () => (await import('./agreement')).agreementCommand },
  {
    name: 'annotate',
    summary: 'Annotation edits from a script (one item, or many rows from a CSV in one transaction)',
    load: async () => (await import('./annotate')).annotateCommand,
  },
  { name: 'cascade', summary: 'Confidence cascade over a budget chain against a reference budget', load: async () => (await import('./cascade')).cascadeCommand },
  { name: 'export', summary: 'Write the project in the release layout (folder or zip)', load: async () => (await import('./export')).exportCommand },
  {
    name: 'extract-frames',
    summary: 'Extract exact frames by index list or sampling policy into a folder',
    load: async () => (await import('./extract-frames')).extractFramesCommand,
  },
  { name: 'frames', summary: "Extract an item's frames for every config of a model and list them", load: async () => (await import('./frames')).framesCommand },
  { name: 'import', summary: 'Import result files, metadata or a release into a project', load: async () => (await import('./import')).importCommand },
  { name: 'merge', summary: "Merge another annotator's exported release or annotations/ folder (idempotent)", load: async () => (await import('./merge')).mergeCommand },
  { name: 'metrics', summary: 'Item-level scaling metrics, transitions and the matched grid of a project', load: async () => (await import('./metrics')).metricsCommand },
  { name: 'probe', summary: "Show a video's metadata (frame count, rates, start time, keyframes, VFR)", load: async () => (await import('./probe')).probeCommand },
  { name: 'sample-frames', summary: 'Print the frame indices a sampling policy picks (JSON)', load: async () => (await import('./sample-frames')).sampleFramesCommand },
  {
    name: 'sample-project',
    summary: 'Write the embedded sample project (videos + simulated responses)',
    load: async () => (await import('./sample-project')).sampleProjectCommand,
  },
  { name: 'serve', summary: 'Run the app in a browser (loopback web mode with a token)', load: async () => (await import('./serve')).serveCommand },
  { name: 'sync', summary: "Sync the project's annotation events with a team space on a PostgreSQL server", load: async () => (await import('./sync')).syncCommand },
];
