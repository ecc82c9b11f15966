#ifndef SHAPES_H
#define SHAPES_H

struct square {
    double side;
};

/* Doubles a number. */
int twice_of(int value);

#endif
