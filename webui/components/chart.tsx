/**
 * A chart drawn by the lazily loaded charts module (a chunk of its own, so pages without charts never
 * load the library). The canvas is described for assistive technology by `label`; pages put the
 * figures in a table beside it as well.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Drawn } from '../charts/charts.js';

type ChartsModule = typeof import('../charts/charts.js');

let loading: Promise<ChartsModule> | undefined;
const charts = () => {
  loading ??= import('../charts/charts.js');
  return loading;
};

export function Chart(props: {
  label: string;
  draw: (module: ChartsModule, element: HTMLElement) => Drawn;
  deps: unknown[];
  onDrawn?: () => void;
  /** CSS pixels; the chart fills the width and exactly this height. */
  height?: number;
}) {
  const element = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let drawn: Drawn | undefined;
    let cancelled = false;
    charts().then(
      (module) => {
        if (cancelled || !element.current) return;
        drawn = props.draw(module, element.current);
        props.onDrawn?.();
      },
      (error: unknown) => setFailed(String(error)),
    );
    return () => {
      cancelled = true;
      drawn?.destroy();
    };
  }, props.deps);
  if (failed) return <p class="note error">The chart could not be drawn: {failed}</p>;
  return <div class="chart" role="img" aria-label={props.label} ref={element} style={{ height: `${props.height ?? 240}px` }} />;
}
