export interface Shape {
  area(): number;
}

export class Square implements Shape {
  constructor(public side: number) {}
  area(): number {
    return this.side * this.side;
  }
}

/** Doubles a number. */
export function double(value: number): number {
  return value * 2;
}
