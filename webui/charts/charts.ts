/**
 * Charts on TradingView's lightweight-charts (canvas, ~60 KB gzip, loaded only by pages that draw
 * one). Its attribution logo is off because the page footer carries the credit link its licence asks for.
 * Times are UTC; prices are the API's 0..1 YES prices.
 */
import {
  type AutoscaleInfo,
  CandlestickSeries,
  createChart,
  HistogramSeries,
  type IChartApi,
  LineSeries,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts';
import { formatAxisUsd } from '../lib/format.js';

export interface Drawn {
  destroy(): void;
}

const palette = () => {
  const style = getComputedStyle(document.documentElement);
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    text: read('--text', '#1f2937'),
    grid: read('--grid', '#e5e7eb'),
    up: read('--up', '#15803d'),
    down: read('--down', '#b91c1c'),
    accent: read('--accent', '#1d4ed8'),
    muted: read('--muted-fill', '#94a3b8'),
  };
};

/** A chart that fills its container (the Chart component gives it a fixed height). */
function base(element: HTMLElement): IChartApi {
  const colors = palette();
  return createChart(element, {
    autoSize: true,
    layout: { textColor: colors.text, background: { color: 'transparent' }, attributionLogo: false },
    grid: { vertLines: { color: colors.grid }, horzLines: { color: colors.grid } },
    timeScale: { timeVisible: true, secondsVisible: false },
    localization: {
      timeFormatter: (t: Time) => (typeof t === 'number' ? new Date(t * 1000).toISOString().slice(0, 16).replace('T', ' ') : String(t)),
    },
  });
}

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000) as UTCTimestamp;

export interface CandlePoint {
  bucket_start: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume_usdc: number;
}

/** Candles with volume bars in the bottom fifth. */
export function drawCandles(element: HTMLElement, candles: CandlePoint[]): Drawn {
  const colors = palette();
  const chart = base(element);
  const price = chart.addSeries(CandlestickSeries, {
    upColor: colors.up,
    downColor: colors.down,
    wickUpColor: colors.up,
    wickDownColor: colors.down,
    borderVisible: false,
    priceFormat: { type: 'price', precision: 3, minMove: 0.001 },
    // Prices live in 0..1: the axis never pads below zero or above one.
    autoscaleInfoProvider: (original: () => AutoscaleInfo | null) => {
      const info = original();
      if (info?.priceRange) {
        info.priceRange.minValue = Math.max(0, info.priceRange.minValue);
        info.priceRange.maxValue = Math.min(1, info.priceRange.maxValue);
      }
      return info;
    },
  });
  price.setData(candles.map((c) => ({ time: seconds(c.bucket_start), open: c.open, high: c.high, low: c.low, close: c.close })));
  const volume = chart.addSeries(HistogramSeries, { priceScaleId: 'volume', priceFormat: { type: 'volume' }, color: colors.muted });
  chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
  volume.setData(
    candles.map((c) => ({ time: seconds(c.bucket_start), value: c.volume_usdc, color: c.close >= c.open ? colors.up : colors.down })),
  );
  chart.timeScale().fitContent();
  return { destroy: () => chart.remove() };
}

export interface LinePoint {
  time: string;
  value: number;
}

/**
 * One USDC line (PnL curve, open interest); `time` is an ISO timestamp or a YYYY-MM-DD day. The axis
 * is labelled as money, and a flat line (every value the same, e.g. a wallet with no PnL yet) gets a
 * range of a dollar either side instead of the library's degenerate scale.
 */
export function drawLine(element: HTMLElement, points: LinePoint[]): Drawn {
  const chart = base(element);
  const series = chart.addSeries(LineSeries, {
    color: palette().accent,
    lineWidth: 2,
    priceFormat: { type: 'custom', formatter: formatAxisUsd, minMove: 0.01 },
    autoscaleInfoProvider: (original: () => AutoscaleInfo | null) => {
      const info = original();
      if (info?.priceRange && info.priceRange.maxValue - info.priceRange.minValue < 0.01) {
        info.priceRange.minValue -= 1;
        info.priceRange.maxValue += 1;
      }
      return info;
    },
  });
  // The library needs strictly ascending times: the last value per time wins.
  const byTime = new Map<number | string, number>();
  for (const p of points) byTime.set(p.time.length === 10 ? p.time : seconds(p.time), p.value);
  series.setData([...byTime].map(([time, value]) => ({ time: time as Time, value })));
  chart.timeScale().fitContent();
  return { destroy: () => chart.remove() };
}

export interface BarPoint {
  day: string;
  value: number;
  alert?: boolean;
}

/** Bars per day (usage); days with refusals are drawn in the alert colour. */
export function drawBars(element: HTMLElement, points: BarPoint[]): Drawn {
  const colors = palette();
  const chart = base(element);
  chart.applyOptions({ timeScale: { timeVisible: false } });
  const series = chart.addSeries(HistogramSeries, { color: colors.accent, priceFormat: { type: 'volume' } });
  series.setData(points.map((p) => ({ time: p.day as Time, value: p.value, color: p.alert ? colors.down : colors.accent })));
  chart.timeScale().fitContent();
  return { destroy: () => chart.remove() };
}
