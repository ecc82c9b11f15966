// Fixture for the project checker: two type errors.
export function area(width: number, height: number): number {
  return width * height;
}

export const total: number = "not a number";
export const wrong = area("wide", 2);
