import { Square, double } from "./shapes";

export function apply(value: number): number {
  // double is applied twice below
  const é = "😀"; const twice = double(double(value));
  return twice + é.length;
}

export function make(): Square {
  const square = new Square(1);
  return square;
}
