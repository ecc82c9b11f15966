export function helper(value: number): number {
  return value + 1;
}

export function stepA(value: number): number {
  const first = helper(value);
  return helper(first);
}

export function countdown(n: number): number {
  if (n <= 0) {
    return 0;
  }
  return countdown(n - 1);
}
