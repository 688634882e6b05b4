import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { useI18n } from "../i18n/i18n.tsx";
import { TableWrap } from "./layout-bits.tsx";

/**
 * Daily successful queries as bars, drawn by uPlot (a maintained chart library of ~20 KB gzipped that
 * draws on a canvas and needs no inline styles or scripts). A canvas says nothing to a screen reader,
 * so the same numbers are in a table below it.
 */
export function DailyChart({ daily, label }: { daily: Array<{ date: string; count: number }>; label: string }) {
  const { t, number } = useI18n();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const days = daily.map((d) => Number(d.date.slice(8, 10)));
    const counts = daily.map((d) => d.count);
    const width = () => Math.max(280, element.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 220,
        legend: { show: false },
        cursor: { show: true, drag: { x: false, y: false } },
        scales: { x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] }, y: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] } },
        axes: [
          { values: (_u, ticks) => ticks.map((v) => (Number.isInteger(v) ? String(v) : "")), stroke: "#3f3f46", grid: { show: false } },
          { values: (_u, ticks) => ticks.map((v) => number(v)), stroke: "#3f3f46", grid: { stroke: "#e4e4e7" }, size: 60 },
        ],
        series: [{}, { label: t("usage.queries"), fill: "#2563eb", stroke: "#1d4ed8", paths: uPlot.paths.bars!({ size: [0.7, 40] }), points: { show: false } }],
      },
      [days, counts],
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [daily, t, number]);
  return (
    <figure className="chart">
      <figcaption>{label}</figcaption>
      <div ref={box} className="chart-canvas" aria-hidden="true" data-testid="usage-chart" />
      <details>
        <summary>{t("usage.asTable")}</summary>
        <TableWrap label={label}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t("usage.date")}</th>
                <th scope="col">{t("usage.queries")}</th>
              </tr>
            </thead>
            <tbody>
              {daily.map((d) => (
                <tr key={d.date}>
                  <th scope="row">{d.date}</th>
                  <td>{number(d.count)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </details>
    </figure>
  );
}
