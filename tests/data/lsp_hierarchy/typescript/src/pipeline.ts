import { helper, stepA } from "./basics";

export function stepB(value: number): number {
  return helper(value) * 2;
}

export function runAll(value: number): number {
  const total = stepA(value) + stepB(value);
  console.log(total);
  return Math.max(total, 0);
}

export function mainEntry(): void {
  runAll(3);
}
