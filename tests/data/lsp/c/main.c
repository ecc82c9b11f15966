#include "shapes.h"

/* Doubles a number. */
int twice_of(int value) {
    return value * 2;
}

int apply(int value) {
    // twice_of is applied twice below
    const char *s = "é😀"; int twice = twice_of(twice_of(value));
    return twice + (int)sizeof(s);
}

double area(void) {
    struct square sq = { 1.0 };
    return sq.side * sq.side;
}
