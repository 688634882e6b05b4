import { referenceDataset } from "./catalog/importers/reference.ts";
const { candidate, report } = await referenceDataset();
const ops = new Map(candidate.operators.map((o) => [o.id, o]));
let linked = 0, active = 0, mismatch = 0;
const mm = new Map<string, number>();
const inactive = new Map<string, number>();
for (const r of candidate.numberRanges) {
  if (!r.operator_id) continue;
  linked++;
  const o = ops.get(r.operator_id)!;
  if (o.status === "active") active++; else inactive.set(`${o.id}(${o.status})`, (inactive.get(`${o.id}(${o.status})`) ?? 0) + 1);
  if (o.country_iso2 !== r.country_iso2) { mismatch++; const k = `${r.country_iso2}->${o.id}`; mm.set(k, (mm.get(k) ?? 0) + 1); }
}
console.log({ total: candidate.numberRanges.length, linked, active, rate: active / candidate.numberRanges.length, mismatch });
console.log([...mm].sort((a, b) => b[1] - a[1]).slice(0, 40));
console.log([...inactive].sort((a, b) => b[1] - a[1]).slice(0, 40));
const regions = new Set(candidate.numberRanges.map(r=>r.country_iso2));
console.log(candidate.countries.filter(c => c.mccs.length === 0 && regions.has(c.iso2)).map(c=>c.iso2).join(" "));
