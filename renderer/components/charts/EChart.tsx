/**
 * One echarts chart with what every overview chart needs: an accessible name, canvas
 * rendering (30k-item heatmaps stay responsive), PNG/SVG/CSV export buttons, and a
 * deterministic test hook — `data-ready` once drawn and `data-marks`, the pixel centre of
 * each named mark, so a test (or a keyboard user via the numbers table) can hit one exactly.
 */
import { useEffect, useRef } from 'react';
import * as echarts from 'echarts';
import { downloadText, downloadUrl, toCsv } from './export';

export type ChartOption = echarts.EChartsOption;

/**
 * Tooltip formatters return HTML: every piece of data in one (sample ids, config and class
 * names come from imported files) goes through this, so an id like `<a href=…>` shows as text.
 */
export const html = (v: unknown): string => echarts.format.encodeHTML(String(v ?? ''));
/** Numbers in tooltips and labels: two decimals, never 79.16666666666666. */
export const num = (x: number, digits = 2): string => (Number.isFinite(x) ? x.toFixed(digits) : String(x));
/** Category-axis labels: every one shown (11 configs included), turned when they would collide. */
export function allLabels(n: number, width: number): { interval: 0; rotate: number; fontFamily: string } {
  return { interval: 0, rotate: n * 70 > width ? 35 : 0, fontFamily: 'ui-monospace, monospace' };
}
export type ChartClick = { seriesName?: string; dataIndex: number; data: unknown };

export interface EChartProps {
  /** Accessible name of the chart, also the export file stem. */
  label: string;
  testId: string;
  option: ChartOption;
  height?: number;
  onClick?: (p: ChartClick) => void;
  /** The chart's numbers: header row first. */
  csv: () => (string | number | null)[][];
  /** Named marks → data coordinates, turned into pixel centres for `data-marks`. */
  marks?: (chart: echarts.ECharts) => Record<string, [number, number] | null>;
}

function fileStem(label: string): string {
  return label.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+|_+$/g, '') || 'chart';
}

export function EChart({ label, testId, option, height = 320, onClick, csv, marks }: EChartProps) {
  const el = useRef<HTMLDivElement>(null);
  const chartRef = useRef<echarts.ECharts | null>(null);
  const clickRef = useRef(onClick);
  clickRef.current = onClick;

  useEffect(() => {
    const node = el.current;
    if (!node) return;
    const chart = echarts.init(node, undefined, { renderer: 'canvas' });
    chartRef.current = chart;
    chart.on('click', (p) => clickRef.current?.({ seriesName: p.seriesName, dataIndex: p.dataIndex, data: p.data }));
    const ro = new ResizeObserver(() => chart.resize());
    ro.observe(node);
    return () => {
      ro.disconnect();
      // zrender paints a large (incremental) layer over several animation frames, ~15 ms each,
      // and dispose does not cancel the next one, which then reads the disposed painter
      // ("Cannot read properties of null (reading 'layerStack')", seen leaving the overview
      // under load). A repaint of the cleared chart gets a new redraw id, and a pending frame
      // with the old id stops before touching the painter.
      chart.clear();
      chart.getZr().refreshImmediately();
      chart.dispose();
      chartRef.current = null;
    };
  }, []);

  useEffect(() => {
    const chart = chartRef.current;
    const node = el.current;
    if (!chart || !node) return;
    node.dataset.ready = 'false';
    chart.setOption({ animation: false, ...option }, { notMerge: true });
    if (marks) {
      const out: Record<string, [number, number]> = {};
      for (const [k, v] of Object.entries(marks(chart))) if (v) out[k] = [Math.round(v[0]), Math.round(v[1])];
      node.dataset.marks = JSON.stringify(out);
    }
    node.dataset.ready = 'true';
  }, [option, marks]);

  const exportPng = () => {
    const chart = chartRef.current;
    if (chart) downloadUrl(`${fileStem(label)}.png`, chart.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: '#fff' }));
  };
  const exportSvg = () => {
    const node = el.current;
    // A server-side-rendering SVG instance of the same option: the visible chart stays on canvas.
    const svg = echarts.init(null, undefined, { renderer: 'svg', ssr: true, width: node?.clientWidth || 800, height });
    svg.setOption({ animation: false, ...option });
    downloadText(`${fileStem(label)}.svg`, svg.renderToSVGString(), 'image/svg+xml');
    svg.dispose();
  };
  const exportCsv = () => downloadText(`${fileStem(label)}.csv`, toCsv(csv()), 'text/csv');

  return (
    <figure className="chart" aria-label={label}>
      <div ref={el} role="img" aria-label={label} data-testid={testId} style={{ height, width: '100%' }} />
      <figcaption className="chart-actions">
        <button type="button" aria-label={`Export ${label} as PNG`} onClick={exportPng}>
          PNG
        </button>
        <button type="button" aria-label={`Export ${label} as SVG`} onClick={exportSvg}>
          SVG
        </button>
        <button type="button" aria-label={`Export ${label} numbers as CSV`} onClick={exportCsv}>
          CSV
        </button>
      </figcaption>
    </figure>
  );
}
