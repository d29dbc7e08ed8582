// Chart tooltips are HTML: data from imported files (sample ids, configs, classes) must show
// as text, never as markup (docs/security.md "Web mode").
import { describe, expect, it } from 'vitest';
import { heatmapTip, patternTip } from '../../renderer/components/charts/TrajectoryHeatmap';

describe('chart tooltips escape imported data', () => {
  it('a hostile sample id, class and config in the heatmap tooltip are text', () => {
    const tip = heatmapTip({ sampleId: '<a href="https://x.test/">001-1</a><img src=x>', cls: '<b>stable</b>' }, '<style>body{display:none}</style>', true);
    expect(tip).not.toMatch(/<a |<img|<b>|<style>/);
    expect(tip).toContain('&lt;a href=&quot;https://x.test/&quot;&gt;001-1&lt;/a&gt;&lt;img src=x&gt;');
    expect(tip).toContain('&lt;style&gt;');
    expect(tip).toContain(': correct<br/>');
  });

  it('a hostile class and config in a pattern row’s tooltip are text', () => {
    const tip = patternTip({ pattern: '0111', n: 12, cls: '<b>x</b>' }, '<img src=x>', false);
    expect(tip).not.toMatch(/<b>|<img/);
    expect(tip).toContain('12 items with pattern 0111 (&lt;b&gt;x&lt;/b&gt;)');
    expect(tip).toContain('&lt;img src=x&gt;: wrong');
  });
});
