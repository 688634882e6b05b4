/**
 * A reader of the Prometheus text exposition format (version 0.0.4), written from its specification
 * for the tests: families by `# TYPE`, samples with their labels (escapes `\\`, `\"`, `\n` undone) and
 * values. Not parse-prometheus-text-format: it merges a labelled histogram's series into one and drops
 * their labels, `_sum` and `_count`, which is what the tests read.
 */
export interface PromSample {
  /** The sample's own name (a histogram's `_bucket`, `_sum`, `_count` included). */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface PromFamily {
  name: string;
  type: string;
  help: string;
  samples: PromSample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\S+)?$/;

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf("=", i);
    if (eq < 0) break;
    const name = text.slice(i, eq).trim();
    if (text[eq + 1] !== '"') throw new Error(`label ${name}: value not quoted in {${text}}`);
    let value = "";
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === "\\") {
        const next = text[++j];
        value += next === "n" ? "\n" : next;
      } else value += text[j];
    }
    if (j >= text.length) throw new Error(`label ${name}: unterminated value in {${text}}`);
    labels[name] = value;
    i = j + 1;
    while (text[i] === "," || text[i] === " ") i++;
  }
  return labels;
}

/** Every family of an exposition by name; a sample before its family's `# TYPE` is an error. */
export function parsePrometheusText(text: string): Map<string, PromFamily> {
  const families = new Map<string, PromFamily>();
  const familyOf = (sample: string) => {
    for (const suffix of ["", "_bucket", "_sum", "_count", "_total", "_created"]) {
      if (suffix && !sample.endsWith(suffix)) continue;
      const family = families.get(sample.slice(0, sample.length - suffix.length));
      if (family) return family;
    }
    throw new Error(`sample ${sample} has no # TYPE line before it`);
  };
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      const family = families.get(name) ?? { name, type: "untyped", help: "", samples: [] };
      if (kind === "TYPE") family.type = rest;
      else family.help = rest;
      families.set(name, family);
      continue;
    }
    if (line.startsWith("#")) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const [, name, labels, value] = match as unknown as [string, string, string | undefined, string];
    familyOf(name).samples.push({ name, labels: labels ? parseLabels(labels) : {}, value: value === "+Inf" ? Infinity : value === "-Inf" ? -Infinity : Number(value) });
  }
  return families;
}

/** The value of the one sample of `family` named `name` (the family's own name by default) with exactly these labels, or 0. */
export function sampleValue(families: Map<string, PromFamily>, family: string, labels: Record<string, string> = {}, name = family): number {
  const samples = families.get(family)?.samples ?? [];
  const wanted = Object.entries(labels);
  const found = samples.find((s) => s.name === name && Object.keys(s.labels).length === wanted.length && wanted.every(([k, v]) => s.labels[k] === v));
  return found?.value ?? 0;
}
