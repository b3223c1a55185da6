// Small statistics helpers shared by the benchmarks.

/** The q-quantile (0..1) of `values`, nearest-rank on a sorted copy. */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

export const median = (values) => quantile(values, 0.5);

/** `list` rotated by `by` places: round r runs the contenders starting from a different one, so none always goes first. */
export function rotate(list, by) {
  const k = ((by % list.length) + list.length) % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

/** A ratio rounded for reports (3 decimals). */
export const ratio = (a, b) => Math.round((a / b) * 1000) / 1000;

/**
 * The median of per-round ratios `values[i] / baseline[i]`, rounded as
 * `ratio`: rounds are paired with the baseline's, so the machine's drift
 * between rounds stays out of the figure.
 */
export const pairedRatio = (values, baseline) => ratio(median(values.map((v, i) => v / baseline[i])), 1);

export const round = (value, digits = 1) => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};
