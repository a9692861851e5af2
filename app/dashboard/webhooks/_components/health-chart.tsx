"use client";

import { useT } from "@/app/_i18n/client";
import type { EndpointHealthDto } from "@/server/webhooks/schema";
import { successRate } from "./format";

/**
 * Attempts per hour over the last 24 hours, drawn as hand-written SVG bars (successes and failures stacked),
 * with a one-line summary as the image's name and the figures as a table one click away (docs/ui.md, "Webhooks").
 */
export function HealthChart({ health }: { health: EndpointHealthDto }) {
  const t = useT();
  const max = Math.max(1, ...health.hours.map((h) => h.attempts));
  const rate = successRate(health.attempts, health.successes);
  const summary =
    rate === null
      ? t("webhooks.health.empty")
      : t("webhooks.health.summary", { attempts: health.attempts, rate });
  const width = 24 * 12;
  const height = 64;
  return (
    <div className="space-y-2" data-testid="endpoint-health">
      <p className="text-sm text-fg">{summary}</p>
      <svg
        role="img"
        aria-label={summary}
        viewBox={`0 0 ${width} ${height + 14}`}
        className="h-24 w-full max-w-xl"
        preserveAspectRatio="none"
      >
        <line x1="0" y1={height} x2={width} y2={height} className="stroke-border-strong" strokeWidth="1" />
        {health.hours.map((hour, i) => {
          const failures = hour.attempts - hour.successes;
          const okHeight = (hour.successes / max) * height;
          const failHeight = (failures / max) * height;
          return (
            <g key={hour.hour}>
              <rect
                x={i * 12 + 2}
                y={height - okHeight}
                width="8"
                height={okHeight}
                className="fill-success"
              />
              <rect
                x={i * 12 + 2}
                y={height - okHeight - failHeight}
                width="8"
                height={failHeight}
                className="fill-danger"
              />
              {i % 6 === 0 ? (
                <text x={i * 12 + 6} y={height + 12} textAnchor="middle" className="fill-muted text-[9px]">
                  {hour.hour.slice(11, 13)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <details>
        <summary className="cursor-pointer text-sm text-primary">{t("webhooks.health.showTable")}</summary>
        <table className="mt-2 text-sm">
          <caption className="sr-only">{t("webhooks.health.table")}</caption>
          <thead>
            <tr>
              <th scope="col" className="pr-4 text-left">
                {t("webhooks.health.hour")}
              </th>
              <th scope="col" className="pr-4 text-right">
                {t("webhooks.health.attempts")}
              </th>
              <th scope="col" className="text-right">
                {t("webhooks.health.successes")}
              </th>
            </tr>
          </thead>
          <tbody>
            {health.hours.map((hour) => (
              <tr key={hour.hour}>
                <th scope="row" className="pr-4 text-left font-normal">
                  {`${hour.hour.slice(0, 10)} ${hour.hour.slice(11, 16)}`}
                </th>
                <td className="pr-4 text-right">{hour.attempts}</td>
                <td className="text-right">{hour.successes}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}
